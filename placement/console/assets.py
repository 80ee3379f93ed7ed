"""The console's static files, answered before authentication.

A browser first asks for ``/console/`` with no token (it has none yet): the
pages, scripts and styles hold no data, so they are served here, outside
the auth layers, from the package's ``static/`` directory, read once when
the app is built. ``/console/settings.json`` tells the page how the
deployment authenticates (``noauth2``: open at once as ``admin``;
``keystone``: ask for a token). Every path under ``/console/api/`` goes on
to the inner application, where authentication, policy and the Falcon
routes apply as to every API call.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources

from placement import auth, errors

PREFIX = "/console"
#: Paths under this prefix are API routes: they pass through to authentication.
API_PREFIX = "/console/api/"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}

#: Nothing but our own files: no inline script, no other origin.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Asset:
    """One file as it is sent: its bytes, media type and entity tag."""

    body: bytes
    content_type: str
    etag: str

    @classmethod
    def of(cls, name: str, body: bytes) -> Asset:
        suffix = name[name.rfind(".") :]
        content_type = _TYPES.get(suffix) or mimetypes.guess_type(name)[0]
        return cls(
            body,
            content_type or "application/octet-stream",
            '"' + hashlib.sha256(body).hexdigest()[:32] + '"',
        )


def load_assets(auth_strategy: str) -> dict[str, Asset]:
    """Every file of ``static/`` by name, plus ``settings.json`` for ``auth_strategy``."""
    folder = resources.files(__package__).joinpath("static")
    found = {
        entry.name: Asset.of(entry.name, entry.read_bytes())
        for entry in folder.iterdir()
        if entry.is_file() and not entry.name.startswith(".")
    }
    settings = json.dumps({"auth_strategy": auth_strategy}).encode()
    found["settings.json"] = Asset.of("settings.json", settings)
    return found


class ConsoleAssets:
    """WSGI layer: ``/console/…`` from the package, anything else to ``app``.

    ``/console`` redirects to ``/console/``, which is ``index.html``. Only
    ``GET`` and ``HEAD``; an unknown file is the API's 404 document. Answers
    carry an ``ETag`` (a matching ``If-None-Match`` is a 304) and
    ``Cache-Control: no-cache``, so an upgraded server's files are used at
    once, and a Content-Security-Policy allowing our own files only.
    """

    def __init__(self, app: auth.WSGIApp, auth_strategy: str) -> None:
        self.app = app
        self.assets = load_assets(auth_strategy)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path.startswith(API_PREFIX) or not (path == PREFIX or path.startswith(PREFIX + "/")):
            return self.app(environ, start_response)
        method = environ.get("REQUEST_METHOD", "GET")
        if method not in ("GET", "HEAD"):
            return _error(environ, start_response, errors.MethodNotAllowed("GET, HEAD"))
        if path == PREFIX:
            location = environ.get("SCRIPT_NAME", "") + PREFIX + "/"
            start_response(
                "301 Moved Permanently", [("Location", location), ("Content-Length", "0")]
            )
            return [b""]
        asset = self.assets.get(path[len(PREFIX) + 1 :] or "index.html")
        if asset is None:
            return _error(environ, start_response, errors.NotFound("No such console file."))
        headers = [
            ("Content-Type", asset.content_type),
            ("ETag", asset.etag),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", _CSP),
        ]
        if asset.etag in environ.get("HTTP_IF_NONE_MATCH", ""):
            start_response("304 Not Modified", headers)
            return [b""]
        start_response("200 OK", [*headers, ("Content-Length", str(len(asset.body)))])
        return [b"" if method == "HEAD" else asset.body]


def _error(environ: dict, start_response: Callable, error: errors.PlacementError) -> list[bytes]:
    """``error`` as the API's error document (the one renderer)."""
    content_type, body = errors.render(
        error, environ, request_id=environ.get(auth.REQUEST_ID_KEY), with_code=False
    )
    status = f"{error.status} {HTTPStatus(error.status).phrase}"
    headers = [(name.title(), value) for name, value in error.headers.items()]
    start_response(
        status,
        [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers],
    )
    return [body]
