"""``placement.wsgi.watcher:application`` under a real gunicorn, as an operator
serves Watcher's endpoint (``infra-optim``) on a port of its own.

What watcher-tempest-plugin's API discovery test asks of the catalog's
endpoint: ``/`` lists v1 as the default version, ``/v1`` names its resources;
and what python-watcherclient then does: a list under ``/v1``, whose links
lead back to this server.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest

from tests import rig, server

ADMIN = {"x-auth-token": "admin", "accept": "application/json"}


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message, Any]:
    """Status, headers (names in any case) and JSON body of a GET."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.loads(exc.read())


@pytest.fixture(scope="module", params=rig.backends())
def endpoint(request: pytest.FixtureRequest) -> Iterator[str]:
    """Watcher's API alone, two gunicorn workers, on each backend's database."""
    with rig.migrated_database(request.param) as url:
        with server.gunicorn(
            url, workers=2, application="placement.wsgi.watcher:application"
        ) as base:
            yield base


def test_the_root_is_watchers_version_document(endpoint):
    status, headers, body = _get(endpoint + "/")
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert not any(name.lower().startswith("openstack-api") for name in headers.keys())
    assert body["name"] == "OpenStack Watcher API"
    assert [version["id"] for version in body["versions"]] == ["v1"]
    assert body["default_version"] == {
        "id": "v1",
        "status": "CURRENT",
        "max_version": "1.7",
        "min_version": "1.0",
        "links": [{"href": f"{endpoint}/v1/", "rel": "self"}],
    }


def test_v1_names_its_resources_and_links_back_here(endpoint):
    status, headers, body = _get(endpoint + "/v1", ADMIN)
    assert status == 200
    assert headers["openstack-api-version"] == "infra-optim 1.0"
    for resource in ("audit_templates", "audits", "action_plans", "actions", "links"):
        assert resource in body
    assert body["media_types"][0]["type"] == "application/vnd.openstack.watcher.v1+json"
    assert body["links"][0] == {"href": f"{endpoint}/v1/", "rel": "self"}
    assert body["audits"][0] == {"href": f"{endpoint}/v1/audits/", "rel": "self"}
    status, _, followed = _get(body["audits"][0]["href"], ADMIN)
    assert (status, followed) == (200, {"audits": []})


def test_a_goal_list_under_v1_whose_links_answer(endpoint):
    status, _, body = _get(endpoint + "/v1/goals/?limit=1", ADMIN)
    assert status == 200
    [goal] = body["goals"]
    assert goal["links"][0]["href"] == f"{endpoint}/v1/goals/{goal['uuid']}"
    assert body["next"].startswith(f"{endpoint}/v1/goals?")
    status, _, shown = _get(goal["links"][0]["href"], ADMIN)
    assert (status, shown["uuid"]) == (200, goal["uuid"])
    status, _, page = _get(body["next"], ADMIN)
    assert status == 200
    assert page["goals"][0]["uuid"] != goal["uuid"]


def test_placements_routes_are_absent(endpoint):
    status, _, body = _get(endpoint + "/resource_providers", ADMIN)
    assert status == 404
    assert "The resource could not be found." in json.loads(body["error_message"])["faultstring"]
