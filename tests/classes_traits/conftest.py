"""An app on a fresh database per backend, and a way to call it from threads."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from io import BytesIO

import pytest
import sqlalchemy

from tests import rig


@pytest.fixture
def app(backend: str) -> Iterator:
    """The whole WSGI app (noauth2) on a fresh migrated database."""
    with rig.placement_app(backend) as (wsgi_app, _conf):
        yield wsgi_app


@pytest.fixture
def engine(app) -> sqlalchemy.Engine:
    """The app's own engine, for calling the object layer directly."""
    return app.placement_engine


def call(app, method: str, path: str, body=None, version: str = "latest") -> tuple:
    """One admin request through the app: ``(status, headers, json or None)``."""
    data = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path.split("?")[0],
        "QUERY_STRING": path.partition("?")[2], "SERVER_NAME": "localhost",
        "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": BytesIO(data),
        "wsgi.errors": sys.stderr, "CONTENT_LENGTH": str(len(data)),
        "HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": f"placement {version}",
    }
    if body is not None:
        environ["CONTENT_TYPE"] = "application/json"
    seen: dict = {}

    def start_response(status, headers, exc_info=None):
        seen["status"] = int(status.split()[0])
        seen["headers"] = {name.lower(): value for name, value in headers}

    raw = b"".join(app(environ, start_response))
    return seen["status"], seen["headers"], (json.loads(raw) if raw else None)
