"""The OpenAPI description: every route in it, valid OpenAPI 3.1, served before
authentication and printed by ``placement-manage api-spec``, and each status
it names one the route really answers.

The refusals a route's preamble and the middleware make (403, 406, 415, a
version below the route's first, a bad version header or ``Content-Length``)
are provoked here for real, at the newest microversion; the others come from
the route's declared successes and its answer tables (domain error → HTTP
error), whose stories are in ``gabbits/``.
"""

from __future__ import annotations

import json

import falcon.testing
import openapi_spec_validator
import pytest

from placement import microversion as mv
from placement.cmd import manage
from placement.handlers import preamble
from placement.handlers.actionplans.preamble import Lookup
from placement.wsgi import openapi, routes
from tests import rig

DOC = openapi.document()
FIELDS = {
    "uuid": "9b5e1ad0-8c0f-4a43-9b8e-0d4a4b2b8b8e",
    "consumer_uuid": "0f6e3c0a-9d4e-4d7e-8d1a-4b1c2d3e4f50",
    "name": "CUSTOM_OPENAPI",
    "resource_class": "VCPU",
    "ident": "5c0a4a6e-3d1b-4e0b-9f8a-2a3b4c5d6e7f",
}
OPERATIONS = [
    pytest.param(template, method, resource, id=f"{method} {template}")
    for template, method, resource in openapi.operations()
]


def test_every_route_and_method_is_described():
    described = {(path, method) for path, item in DOC["paths"].items() for method in item}
    routed = {
        (template, method.strip().lower())
        for template, _resource, allow in routes.ROUTES
        for method in allow.split(",")
    }
    assert described == routed


def test_it_is_valid_openapi_3_1():
    openapi_spec_validator.validate(DOC)


def test_newest_shapes_are_documented_and_older_ones_differ():
    provider = DOC["paths"]["/resource_providers/{uuid}"]["get"]
    schema = provider["responses"]["200"]["content"]["application/json"]["schema"]
    assert "root_provider_uuid" in schema["required"]
    header = next(p for p in provider["parameters"] if p["in"] == "header")
    assert header["schema"]["enum"] == [f"placement {mv.MAX_VERSION}"]
    older = provider["x-openstack-microversions"]
    assert [(r["min_version"], r["max_version"]) for r in older] == [("1.0", "1.13")]
    assert "root_provider_uuid" not in older[0]["responses"]["200"]["required"]
    # Before 1.2 the resource class routes do not exist: a 404.
    classes = DOC["paths"]["/resource_classes/{name}"]["put"]["x-openstack-microversions"]
    assert classes[0] == {"min_version": "1.0", "max_version": "1.1", "refused": 404}
    assert classes[1]["max_version"] == "1.6"
    assert classes[1]["responses"] == {"200": _shown_resource_class()}
    # Watcher's routes document infra-optim versions, and its error document.
    action = DOC["paths"]["/v1/actions/{ident}"]["patch"]
    assert action["x-openstack-microversions"][0] == {
        "min_version": "1.0",
        "max_version": "1.4",
        "refused": 400,
    }
    assert action["responses"]["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/WatcherError"
    }


def _shown_resource_class() -> dict:
    """The newest ``GET /resource_classes/{name}`` answer's schema."""
    get = DOC["paths"]["/resource_classes/{name}"]["get"]
    return get["responses"]["200"]["content"]["application/json"]["schema"]


def test_served_before_authentication_and_printed_by_manage(capsys, tmp_path):
    with rig.placement_app("sqlite") as (app, _):
        reply = rig.request(app, "GET", "/openapi.json")
        assert reply.status == 200
        assert reply.headers["content-type"] == "application/json"
        assert reply.json() == json.loads(json.dumps(DOC))
        head = rig.request(app, "HEAD", "/openapi.json")
        assert (head.status, head.body) == (200, b"")
        # Other methods, and every other path, are the API's: unauthenticated here.
        assert rig.request(app, "POST", "/openapi.json").status == 401
    conf_file = tmp_path / "placement.conf"
    conf_file.write_text("")
    assert manage.main(["--config-file", str(conf_file), "api-spec"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(DOC))


@pytest.fixture(scope="module")
def app():
    with rig.placement_app("sqlite") as (app, _):
        yield app


def _ask(app, template, method, *, token="admin", version=None, headers=None, environ=None):
    """``method`` on ``template`` (fields filled in) with a JSON body for writes."""
    api = openapi.api_of(template)
    body = b"{}" if method in ("PUT", "POST", "PATCH") else b""
    sent = {
        "X-Auth-Token": token,
        "Accept": "application/json",
        "Content-Type": "application/json",
        "OpenStack-API-Version": api.header(version or api.maximum),
        **(headers or {}),
    }
    env = falcon.testing.create_environ(
        path=template.format(**FIELDS), method=method, headers=sent, body=body
    )
    env.update(environ or {})
    seen = {}

    def start_response(status, response_headers, exc_info=None):
        seen["status"] = int(status.split()[0])

    b"".join(app(env, start_response))
    return seen["status"]


def _looks_up_before_authorizing(declared: preamble.Declaration) -> bool:
    """Watcher's single objects: an unknown one is a 404 whoever asks."""
    return any(isinstance(step, Lookup) for step in declared.steps)


@pytest.mark.parametrize("template, method, resource", OPERATIONS)
def test_each_documented_status_is_one_the_route_answers(app, template, method, resource):
    documented = {int(status) for status in DOC["paths"][template][method.lower()]["responses"]}
    api = openapi.api_of(template)
    current = openapi.newest(openapi.declarations_of(resource, method), api)
    # Refusals before the responder, each provoked for real.
    provoked = {
        406: _ask(app, template, method, headers={"OpenStack-API-Version": f"{api.service} 9.0"}),
        400: _ask(app, template, method, environ={"CONTENT_LENGTH": "many"}),
        413: _ask(app, template, method, environ={"CONTENT_LENGTH": str(2**40)}),
    }
    if current.rule is not None and not _looks_up_before_authorizing(current):
        provoked[403] = _ask(app, template, method, token="nobody:someproject")
    if current.accepts_json:
        assert _ask(app, template, method, headers={"Accept": "text/plain"}) == 406
    if current.sends_json:
        provoked[415] = _ask(app, template, method, headers={"Content-Type": "text/plain"})
    since = current.since
    if since is not None and since.minimum > api.minimum:
        # Below its first version the route answers what the description says.
        below = mv.Version(since.minimum.major, since.minimum.minor - 1)
        older = DOC["paths"][template][method.lower()]["x-openstack-microversions"]
        shape = next(r for r in older if r["max_version"] == str(below))
        assert _ask(app, template, method, version=below) == shape["refused"]
    assert {status: status for status in provoked} == provoked
    # Everything documented is a success the responder declares, one of those
    # refusals, a lookup's or body's refusal, an answer of its tables, the 404
    # of a path field holding "/", or the 503 of a database outage.
    answered = {a.error.status for table in current.answers for a in table.values()}
    answered |= {a.error.status for a in resource.ANSWERS.values()}
    stepped = {
        status
        for step in current.steps
        if not isinstance(step, preamble.Since)
        for status in preamble.refusals(step)
    }
    shown = set(openapi.successes(current, api.maximum))
    sources = shown | set(provoked) | answered | stepped | {503}
    if "{" in template:
        sources.add(404)
    assert documented <= sources
    assert shown | set(provoked) <= documented
