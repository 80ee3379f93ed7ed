"""A stand-in Keystone (identity v3) on a loopback port, for auth_token tests.

It answers just what keystonemiddleware asks: version discovery, a password
login for the service user (``POST /v3/auth/tokens``) whose catalog points back
here, and token validation (``GET /v3/auth/tokens`` with ``X-Subject-Token``),
which answers 404 for tokens it never issued, as Keystone does.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

SERVICE_USER = "placement"
SERVICE_PASSWORD = "secret"
SERVICE_TOKEN = "service-token"


def authtoken_section(identity_url: str, public_uri: str) -> str:
    """``placement.conf``'s ``[keystone_authtoken]`` for the stand-in at ``identity_url``."""
    return textwrap.dedent(f"""\
        [keystone_authtoken]
        www_authenticate_uri = {public_uri}
        auth_type = password
        auth_url = {identity_url}/v3
        username = {SERVICE_USER}
        password = {SERVICE_PASSWORD}
        project_name = service
        user_domain_name = Default
        project_domain_name = Default
        """)


def _stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000000Z")


@dataclass
class Token:
    """A user token the stand-in will vouch for."""

    user_id: str
    project_id: str
    roles: list[str]
    expired: bool = False

    def body(self, catalog: list[dict]) -> dict:
        now = datetime.datetime.now(datetime.timezone.utc)
        expires = now + datetime.timedelta(hours=-1 if self.expired else 1)
        domain = {"id": "default", "name": "Default"}
        return {
            "token": {
                "methods": ["password"],
                "issued_at": _stamp(now - datetime.timedelta(hours=2)),
                "expires_at": _stamp(expires),
                "user": {"id": self.user_id, "name": self.user_id, "domain": domain},
                "project": {"id": self.project_id, "name": self.project_id, "domain": domain},
                "roles": [{"id": f"id-{name}", "name": name} for name in self.roles],
                "catalog": catalog,
            }
        }


@dataclass
class Identity:
    """The stand-in's state: its base URL, issued tokens, the calls it saw."""

    url: str = ""
    tokens: dict[str, Token] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def catalog(self) -> list[dict]:
        return [
            {
                "type": "identity",
                "name": "keystone",
                "id": "identity",
                "endpoints": [
                    {
                        "id": f"identity-{interface}",
                        "interface": interface,
                        "region": "RegionOne",
                        "region_id": "RegionOne",
                        "url": f"{self.url}/v3",
                    }
                    for interface in ("public", "internal", "admin")
                ],
            }
        ]

    def version_document(self) -> dict:
        return {
            "id": "v3.14",
            "status": "stable",
            "updated": "2020-04-07T00:00:00Z",
            "links": [{"rel": "self", "href": f"{self.url}/v3/"}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
            ],
        }

    def __call__(self, environ: dict, start_response) -> list[bytes]:
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"].rstrip("/")
        self.calls.append((method, path))
        if method == "GET" and path == "":
            return _reply(
                start_response,
                "300 Multiple Choices",
                {"versions": {"values": [self.version_document()]}},
            )
        if method == "GET" and path == "/v3":
            return _reply(start_response, "200 OK", {"version": self.version_document()})
        if method == "POST" and path == "/v3/auth/tokens":
            return self._login(environ, start_response)
        if method == "GET" and path == "/v3/auth/tokens":
            return self._validate(environ, start_response)
        return _reply(start_response, "404 Not Found", {"error": {"code": 404}})

    def _login(self, environ: dict, start_response) -> list[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        request = json.loads(environ["wsgi.input"].read(length))
        user = request["auth"]["identity"]["password"]["user"]
        if (user.get("name"), user.get("password")) != (SERVICE_USER, SERVICE_PASSWORD):
            return _reply(start_response, "401 Unauthorized", {"error": {"code": 401}})
        service = Token(user_id="placement-service", project_id="service", roles=["service"])
        return _reply(
            start_response,
            "201 Created",
            service.body(self.catalog()),
            [("X-Subject-Token", SERVICE_TOKEN)],
        )

    def _validate(self, environ: dict, start_response) -> list[bytes]:
        if environ.get("HTTP_X_AUTH_TOKEN") != SERVICE_TOKEN:
            return _reply(start_response, "401 Unauthorized", {"error": {"code": 401}})
        token = self.tokens.get(environ.get("HTTP_X_SUBJECT_TOKEN", ""))
        if token is None:
            return _reply(start_response, "404 Not Found", {"error": {"code": 404}})
        return _reply(
            start_response,
            "200 OK",
            token.body(self.catalog()),
            [("X-Subject-Token", environ["HTTP_X_SUBJECT_TOKEN"])],
        )


def _reply(
    start_response, status: str, body: dict, headers: list[tuple[str, str]] = ()
) -> list[bytes]:
    data = json.dumps(body).encode()
    start_response(
        status, [("Content-Type", "application/json"), ("Content-Length", str(len(data))), *headers]
    )
    return [data]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 (wsgiref's name)
        pass


@contextlib.contextmanager
def serving() -> Iterator[Identity]:
    """Run a stand-in identity service on a free loopback port."""
    identity = Identity()
    server: WSGIServer = make_server("127.0.0.1", 0, identity, handler_class=_QuietHandler)
    identity.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield identity
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
