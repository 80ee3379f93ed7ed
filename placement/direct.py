"""The Placement API in-process: no server, no socket, same behaviour.

:class:`PlacementDirect` builds the complete WSGI application (middleware,
policy, handlers, database engine) from a configuration the caller filled in,
and hands out a small client whose requests are WSGI calls into that
application. Tools and tests can read or change placement data exactly as a
client of the service would, without running one::

    from placement import conf as placement_conf
    from placement.direct import PlacementDirect

    conf = placement_conf.load([], default_config_files=[])
    conf.set_override("connection", "sqlite:////tmp/placement.db",
                      group="placement_database")
    conf.set_override("sync_on_startup", True, group="placement_database")
    with PlacementDirect(conf, latest_microversion=True) as client:
        resp = client.get("/resource_providers")
        print(resp.status_code, resp.json())

Requests are authenticated with ``noauth2`` as token ``admin`` holding the
roles ``admin`` and ``service``, so every default policy, including the
service-only ``POST /reshaper``, allows them. The application is mounted
under ``/placement`` on a random host, as upstream's direct client is, so
links and ``Location`` headers carry that prefix.
"""

from __future__ import annotations

import io
import json
import uuid
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from oslo_config import cfg

from placement import wsgi

#: Where the application appears to be mounted.
PREFIX = "/placement"


class Response:
    """What a request answered: status, headers (case-insensitive), body."""

    def __init__(self, status: str, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status_code = int(status.split(" ", 1)[0])
        self.reason = status.partition(" ")[2]
        self.headers = _Headers(headers)
        self.content = body

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.content)

    def __repr__(self) -> str:
        return f"<Response [{self.status_code}]>"


class _Headers(dict):
    """Response headers keyed by lower-cased name."""

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__((name.lower(), value) for name, value in pairs)

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)


class Client:
    """Sends requests straight into a WSGI application."""

    def __init__(self, app: Any, *, host: str, latest_microversion: bool) -> None:
        self._app = app
        self._host = host
        self._default_version = "latest" if latest_microversion else None

    def get(self, url: str, **kwargs: Any) -> Response:
        return self.request("GET", url, **kwargs)

    def put(self, url: str, json: Any = None, **kwargs: Any) -> Response:
        return self.request("PUT", url, json=json, **kwargs)

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Response:
        return self.request("POST", url, json=json, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Response:
        return self.request("DELETE", url, **kwargs)

    def request(
        self,
        method: str,
        url: str,
        json: Any = None,
        version: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        """``url`` is a path below the API root (``/resource_providers?name=x``);
        ``version`` a microversion such as ``"1.30"`` or ``"latest"``."""
        parts = urlsplit(url)
        path = parts.path
        if path.startswith(PREFIX + "/") or path == PREFIX:
            path = path[len(PREFIX) :]
        body = b"" if json is None else _dumps(json)
        environ = {
            "REQUEST_METHOD": method.upper(),
            "SCRIPT_NAME": PREFIX,
            "PATH_INFO": path or "/",
            "QUERY_STRING": parts.query,
            "SERVER_NAME": self._host,
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": self._host,
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": io.StringIO(),
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_ACCEPT": "application/json",
            "HTTP_X_AUTH_TOKEN": "admin",
            "HTTP_X_ROLES": "admin,service",
        }
        if json is not None:
            environ["CONTENT_TYPE"] = "application/json"
        version = version or self._default_version
        if version:
            environ["HTTP_OPENSTACK_API_VERSION"] = f"placement {version}"
        for name, value in (headers or {}).items():
            key = name.upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                environ[key] = value
            else:
                environ[f"HTTP_{key}"] = value
        return self._call(environ)

    def _call(self, environ: dict) -> Response:
        seen: dict = {}

        def start_response(
            status: str, headers: list[tuple[str, str]], exc_info: object = None
        ) -> None:
            seen["status"], seen["headers"] = status, headers

        result = self._app(environ, start_response)
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return Response(seen["status"], seen["headers"], body)


def _dumps(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")


class PlacementDirect:
    """Context manager giving a :class:`Client` to an in-process Placement.

    :param conf: a loaded ``oslo.config`` configuration with at least
        ``[placement_database] connection`` (a migrated database, or set
        ``sync_on_startup``). ``[api] auth_strategy`` is forced to ``noauth2``.
    :param latest_microversion: send ``placement latest`` unless a call
        names a ``version``; otherwise requests default to 1.0.
    """

    def __init__(self, conf: cfg.ConfigOpts, latest_microversion: bool = False) -> None:
        conf.set_override("auth_strategy", "noauth2", group="api")
        self._conf = conf
        self._latest = latest_microversion
        self._app: Any = None

    def __enter__(self) -> Client:
        self._app = wsgi.create_app(self._conf)
        return Client(self._app, host=str(uuid.uuid4()), latest_microversion=self._latest)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        engine = getattr(self._app, "placement_engine", None)
        if engine is not None:
            engine.dispose()
        self._app = None
