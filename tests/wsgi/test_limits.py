"""Request limits checked before routing, whatever the server in front."""

from __future__ import annotations

import json

import falcon.testing
import pytest

from placement.wsgi import limits
from tests import rig

_ADMIN = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement latest"}


@pytest.fixture(scope="module")
def app():
    with rig.placement_app("sqlite") as (wsgi_app, _conf):
        yield wsgi_app


class _Unreadable:
    """A ``wsgi.input`` that fails the test if anything reads it."""

    def read(self, *args: object) -> bytes:
        raise AssertionError("the body was read")

    readline = read


def test_a_declared_length_over_the_limit_is_a_413_unread(app):
    environ = falcon.testing.create_environ(
        method="PUT",
        path="/resource_providers/x/traits",
        headers={**_ADMIN, "Content-Type": "application/json"},
    )
    environ["CONTENT_LENGTH"] = str(10 * 1024 * 1024)
    environ["wsgi.input"] = _Unreadable()
    seen = {}

    def start_response(status, headers, exc_info=None):
        seen["status"] = status

    body = b"".join(app(environ, start_response))
    assert seen["status"].startswith("413")
    assert json.loads(body)["errors"][0]["title"] == "Request Entity Too Large"


def test_the_limit_is_configured():
    with rig.placement_app("sqlite", api={"max_request_body_size": 10}) as (small, _conf):
        reply = rig.request(
            small,
            "POST",
            "/resource_providers",
            {**_ADMIN, "Content-Type": "application/json"},
            b'{"name": "eleven"}',
        )
    assert reply.status == 413
    assert "larger than the 10 bytes" in reply.json()["errors"][0]["detail"]


def test_too_many_query_parameters(app):
    query = "&".join(f"name=n{i}" for i in range(limits.MAX_QUERY_PARAMETERS + 1))
    reply = rig.request(app, "GET", f"/resource_providers?{query}", _ADMIN)
    assert reply.status == 400
    assert "more than 1000 parameters in one request" in reply.json()["errors"][0]["detail"]


def test_as_many_query_parameters_as_allowed(app):
    query = "&".join(f"name=n{i}" for i in range(limits.MAX_QUERY_PARAMETERS))
    assert rig.request(app, "GET", f"/resource_providers?{query}", _ADMIN).status == 200


@pytest.mark.parametrize("name", limits.PARSED_HEADERS)
def test_a_parsed_header_too_long(app, name):
    headers = {**_ADMIN, name: "x" * (limits.MAX_HEADER_LENGTH + 1)}
    reply = rig.request(app, "GET", "/resource_providers", headers)
    assert reply.status == 400
    assert f"The {name} header is longer than 8190 characters" in reply.body.decode()


def test_a_limit_of_thousands_of_digits_on_candidates(app):
    reply = rig.request(
        app, "GET", "/allocation_candidates?resources=VCPU:1&limit=" + "9" * 5000, _ADMIN
    )
    assert reply.status == 400
    assert "limit has more than 4300 digits" in reply.json()["errors"][0]["detail"]


def test_a_limit_of_as_many_digits_as_python_converts_is_no_limit(app):
    reply = rig.request(
        app, "GET", "/allocation_candidates?resources=VCPU:1&limit=" + "9" * 4300, _ADMIN
    )
    assert reply.status == 200


def test_a_limit_of_thousands_of_digits_under_v1(app):
    reply = rig.request(app, "GET", "/v1/goals?limit=" + "9" * 5000, {"X-Auth-Token": "admin"})
    assert reply.status == 400
    fault = json.loads(reply.json()["error_message"])
    assert fault["faultstring"].startswith("Invalid input for field/attribute limit.")
    assert "unable to convert to int" in fault["faultstring"]
