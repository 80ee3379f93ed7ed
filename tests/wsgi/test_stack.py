"""The WSGI stack: request ids, the 500 path, auth context, pre-routing checks."""

import json
import logging

import falcon
import falcon.testing
import pytest

from placement import auth
from placement.handlers import base
from placement.wsgi import middleware
from tests import gabbi_fixtures, rig


@pytest.fixture(scope="module")
def app():
    with rig.placement_app("sqlite") as (wsgi_app, _conf):
        yield wsgi_app


def _get(app, path, **headers):
    return falcon.testing.simulate_get(app, path, headers=headers)


def test_every_response_has_a_fresh_request_id(app):
    first, second = _get(app, "/"), _get(app, "/")
    assert first.headers["x-openstack-request-id"].startswith("req-")
    assert first.headers["x-openstack-request-id"] != second.headers["x-openstack-request-id"]


def test_inbound_request_id_is_not_echoed(app):
    inbound = "req-12345678-1234-1234-1234-123456789012"
    response = _get(app, "/", **{"X-Openstack-Request-Id": inbound})
    assert response.headers["x-openstack-request-id"] != inbound


def test_error_body_carries_the_response_request_id(app):
    response = _get(app, "/nowhere", **{"X-Auth-Token": "admin"})
    assert response.status_code == 404
    assert response.json["errors"][0]["request_id"] == response.headers["x-openstack-request-id"]


def test_401_also_has_a_request_id(app):
    response = _get(app, "/nowhere")
    assert response.status_code == 401
    assert response.headers["x-openstack-request-id"].startswith("req-")


def test_noauth2_builds_the_context():
    seen = {}

    def inner(environ, start_response):
        seen["ctx"] = environ[auth.ENVIRON_KEY]
        start_response("204 No Content", [])
        return [b""]

    stack = auth.NoAuthMiddleware(auth.ContextMiddleware(inner))
    falcon.testing.simulate_get(stack, "/x", headers={"X-Auth-Token": "alice:proj"})
    assert (seen["ctx"].user_id, seen["ctx"].project_id, seen["ctx"].roles) == ("alice", "proj", [])
    falcon.testing.simulate_get(stack, "/x", headers={"X-Auth-Token": "admin"})
    assert seen["ctx"].roles == ["admin"]
    falcon.testing.simulate_get(
        stack,
        "/x",
        headers={
            "X-Auth-Token": "bob",
            "X-Roles": "reader,service",
            "OpenStack-System-Scope": "all",
        },
    )
    assert seen["ctx"].roles == ["reader", "service"]
    assert seen["ctx"].system_scope == "all"


class _Exploding(base.Resource):
    def on_get(self, req, resp):
        raise RuntimeError("kaboom")


def test_unexpected_exception_is_a_500_document_and_a_logged_traceback(caplog):
    app = falcon.App(middleware=[middleware.MicroversionMiddleware()])
    app.add_route("/boom", _Exploding(None))
    middleware.ErrorRenderer({}).install(app)
    wrapped = middleware.RequestLogMiddleware(app)
    with caplog.at_level(logging.ERROR, logger="placement.error"):
        response = falcon.testing.simulate_get(
            wrapped, "/boom", headers={"OpenStack-API-Version": "placement 1.30"}
        )
    assert response.status_code == 500
    doc = json.loads(response.text)["errors"][0]
    assert doc["title"] == "Internal Server Error"
    assert doc["code"] == "placement.undefined_code"
    assert "kaboom" not in response.text
    request_id = response.headers["x-openstack-request-id"]
    assert any(request_id in r.getMessage() and "kaboom" in r.getMessage() for r in caplog.records)


def test_api_call_helper_raises_on_errors(app):
    with pytest.raises(AssertionError, match="404"):
        gabbi_fixtures.api_call(app, "GET", "/nowhere")
