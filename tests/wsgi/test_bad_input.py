"""Malformed requests against a real gunicorn, on every database.

Every route and method of the route table gets the probes of
``tests/badinput.py`` (about 1,500 requests in all): NUL bytes and
surrogates in paths, queries and bodies, ``NaN``, deep nesting, huge
integers, long headers, large bodies. None may be answered 5xx or take
10 s, no worker may be killed (upstream's are, by gunicorn's timeout), and
the database must be the same afterwards. Bodies over the size limit are
refused before they are sent, and the largest list a body can hold is set
in time.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from placement.db import engine as db_engine
from placement.wsgi import create_app
from tests import badinput, rig
from tests.server import gunicorn, worker_pids

#: Seconds a malformed request may take, at most.
SLOWEST = 10.0
_HEADERS = {
    "x-auth-token": "admin",
    "accept": "application/json",
    "openstack-api-version": "placement latest",
}


@pytest.fixture(scope="module", params=rig.backends())
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, badinput.Seeded, str]]:
    """A seeded database served by two gunicorn workers: ``(base URL, seeded, db URL)``."""
    with rig.migrated_database(request.param) as url:
        app = create_app(rig.make_conf(url))
        try:
            seeded = badinput.seed(app)
        finally:
            app.placement_engine.dispose()
        with gunicorn(url, workers=2) as base:
            yield base, seeded, url


def _send(base: str, probe: badinput.Probe) -> tuple[int, float, bytes]:
    """``probe`` on a connection of its own: ``(status, seconds, body)``."""
    headers = {**_HEADERS, **probe.headers}
    if probe.body is not None:
        headers.setdefault("content-type", "application/json")
    conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=SLOWEST + 20)
    start = time.monotonic()
    try:
        conn.request(probe.method, probe.path, body=probe.body, headers=headers)
        response = conn.getresponse()
        return response.status, time.monotonic() - start, response.read()
    finally:
        conn.close()


def _dump(url: str) -> dict:
    engine = db_engine.engine_from_url(url)
    try:
        return badinput.dump(engine)
    finally:
        engine.dispose()


def test_malformed_requests_are_refused_quickly_and_change_nothing(served):
    base, seeded, url = served
    before, workers = _dump(url), worker_pids(base)
    probes = badinput.probes(seeded)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda probe: _send(base, probe), probes))
    failures = [
        (
            status,
            round(took, 1),
            probe.method,
            probe.path[:120],
            (probe.body or b"")[:80],
            body[:200],
        )
        for probe, (status, took, body) in zip(probes, answers, strict=True)
        if status >= 500 or took > SLOWEST
    ]
    assert not failures, failures
    assert worker_pids(base) == workers
    assert _dump(url) == before


@pytest.mark.parametrize("route", ["traits", "aggregates"])
def test_a_body_declared_too_large_is_refused_unread(served, route):
    """A 10 MB list is refused after its headers alone: the server never waits for it."""
    base, seeded, _ = served
    netloc = urlsplit(base).netloc
    host, port = netloc.split(":")
    head = (
        f"PUT /resource_providers/{seeded.provider}/{route} HTTP/1.1\r\n"
        f"Host: {netloc}\r\nX-Auth-Token: admin\r\nAccept: application/json\r\n"
        "OpenStack-API-Version: placement latest\r\nContent-Type: application/json\r\n"
        f"Content-Length: {10 * 1024 * 1024}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=SLOWEST) as sock:
        sock.sendall(head.encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.startswith(b"HTTP/1.1 413"), reply[:500]
    error = json.loads(rest.partition(b"\r\n\r\n")[2])["errors"][0]
    assert error["status"] == 413
    assert "larger than the 1048576 bytes this service accepts" in error["detail"]


def test_the_largest_aggregate_list_a_body_holds_is_set_in_time(served):
    """26,000 new aggregates (1 MiB of uuids, the largest body taken) are set
    well within gunicorn's 30 s worker timeout, by the same worker."""
    base, seeded, _ = served
    workers = worker_pids(base)
    path = f"/resource_providers/{seeded.provider}/aggregates"
    _, _, current = _send(base, badinput.Probe("GET", path))
    generation = json.loads(current)["resource_provider_generation"]
    aggregates = [str(uuid.uuid4()) for _ in range(26_000)]
    body = json.dumps({"aggregates": aggregates, "resource_provider_generation": generation})
    status, took, answer = _send(base, badinput.Probe("PUT", path, body.encode()))
    assert status == 200, answer[:500]
    assert took < SLOWEST
    assert len(json.loads(answer)["aggregates"]) == 26_000
    assert worker_pids(base) == workers
