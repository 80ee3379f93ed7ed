"""Bodies without ``Content-Length`` through a real gunicorn.

A chunked request has no ``Content-Length``; gunicorn hands the decoded body
in ``wsgi.input`` and says it ends (``wsgi.input_terminated``). Upstream reads
such bodies, so every body route must too, ours and ``/v1`` alike.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests import rig
from tests.server import gunicorn


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with rig.migrated_database("sqlite") as url, gunicorn(url, workers=1) as base:
        yield base


def _chunked(base: str, method: str, path: str, body: bytes, **headers: str) -> tuple[int, bytes]:
    """Send ``body`` in two chunks, without Content-Length."""
    conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=30)
    try:
        half = len(body) // 2
        conn.request(
            method,
            path,
            body=iter([body[:half], body[half:]]),
            headers={"x-auth-token": "admin", "content-type": "application/json", **headers},
            encode_chunked=True,
        )
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_chunked_body_is_read(base_url):
    body = json.dumps({"name": "chunked-provider"}).encode()
    status, data = _chunked(
        base_url, "POST", "/resource_providers", body, **{"openstack-api-version": "placement 1.20"}
    )
    assert status == 200, data
    assert json.loads(data)["name"] == "chunked-provider"


def test_a_chunked_put_is_read(base_url):
    body = json.dumps({"traits": [], "resource_provider_generation": 0}).encode()
    _, created = _chunked(
        base_url,
        "POST",
        "/resource_providers",
        json.dumps({"name": "chunked-traits"}).encode(),
        **{"openstack-api-version": "placement 1.20"},
    )
    uuid = json.loads(created)["uuid"]
    status, data = _chunked(
        base_url,
        "PUT",
        f"/resource_providers/{uuid}/traits",
        body,
        **{"openstack-api-version": "placement 1.6"},
    )
    assert status == 200, data


def test_an_empty_chunked_body_is_malformed_json(base_url):
    status, data = _chunked(base_url, "POST", "/resource_providers", b"")
    assert status == 400
    assert b"Malformed JSON" in data


def test_a_chunked_v1_body_is_read(base_url):
    body = json.dumps({"goal": "dummy", "audit_type": "ONESHOT"}).encode()
    status, data = _chunked(base_url, "POST", "/v1/audits", body)
    assert status == 201, data
    assert json.loads(data)["goal_name"] == "dummy"
