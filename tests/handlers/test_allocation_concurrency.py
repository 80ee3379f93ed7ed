"""Many clients claiming the same providers at once never overcommit them.

Each client claims resources for new consumers (``consumer_generation:
null``) until the providers are full, retrying when the server reports a
concurrent update. Afterwards, for every provider and class: usage is
within capacity, every claim that got a 2xx is there, and the usage is
exactly the sum of those claims; nobody got a 5xx.

Clients run as threads against the app in-process, and as separate
processes against gunicorn with several workers on its own database. A
third test races a reshape (VGPU moving from a compute node to a child)
with claims on the same node: no consumer is ever seen half-moved and no
claim is lost.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import pytest

from placement import direct
from tests import rig
from tests.server import gunicorn

#: ``send(method, path, body, version) -> (status, json body or None)``
Send = Callable[[str, str, Any, str], tuple[int, Any]]

CLIENTS = 6
VCPU_TOTAL = 36  # claims of 1 until full
DISK_TOTAL = 24  # claims of 1 until full, together with VCPU on the other provider


@dataclass
class ClaimLog:
    """What one client did: its successful claims and what went wrong."""

    claimed: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    conflicts: int = 0
    server_errors: list[str] = field(default_factory=list)

    def merge(self, other: ClaimLog) -> None:
        self.claimed.update(other.claimed)
        self.conflicts += other.conflicts
        self.server_errors.extend(other.server_errors)


def _claim_body(consumer_allocations: dict[str, dict[str, int]]) -> dict:
    return {
        "allocations": {rp: {"resources": r} for rp, r in consumer_allocations.items()},
        "project_id": "claims",
        "user_id": "claimer",
        "consumer_generation": None,
        "consumer_type": "INSTANCE",
    }


def claim_until_full(send: Send, wanted: dict[str, dict[str, int]], seed: int) -> ClaimLog:
    """Claim ``wanted`` for new consumers until the providers are full.

    Alternates ``PUT /allocations/{c}`` (one consumer) and ``POST
    /allocations`` (two consumers at once).
    """
    log, rng = ClaimLog(), random.Random(seed)
    while True:
        consumers = [str(uuid.uuid4()) for _ in range(rng.choice((1, 2)))]
        if len(consumers) == 1:
            status, body = send("PUT", f"/allocations/{consumers[0]}", _claim_body(wanted), "1.38")
        else:
            status, body = send(
                "POST", "/allocations", {c: _claim_body(wanted) for c in consumers}, "1.38"
            )
        if status == 204:
            log.claimed.update({c: wanted for c in consumers})
        elif status >= 500:
            log.server_errors.append(f"{status} {body}")
            return log
        elif status == 409 and body["errors"][0]["code"] == "placement.concurrent_update":
            log.conflicts += 1
        elif status == 409 and "would exceed the capacity" in body["errors"][0]["detail"]:
            if len(consumers) == 1:
                return log
        else:
            raise AssertionError(f"unexpected answer {status}: {body}")


def check_no_overcommit(
    send: Send, log: ClaimLog, capacities: dict[str, dict[str, int]], *, full: bool
) -> None:
    """Usage within capacity, equal to the successful claims, each claim present."""
    assert log.server_errors == []
    for rp, capacity in capacities.items():
        status, body = send("GET", f"/resource_providers/{rp}/allocations", None, "1.28")
        held = {c: share["resources"] for c, share in body["allocations"].items()}
        expected = {c: claim[rp] for c, claim in log.claimed.items() if rp in claim}
        assert held == expected
        usage = send("GET", f"/resource_providers/{rp}/usages", None, "1.0")[1]["usages"]
        for rc, total in capacity.items():
            assert usage[rc] == sum(claim.get(rc, 0) for claim in expected.values())
            assert usage[rc] <= total
            if full:
                assert usage[rc] == total


# --- transports -------------------------------------------------------------------


def wsgi_sender(app: Any) -> Send:
    client = direct.Client(app, host="localhost", latest_microversion=False)

    def send(method: str, path: str, body: Any, version: str) -> tuple[int, Any]:
        resp = client.request(method, path, json=body, version=version)
        return resp.status_code, (resp.json() if resp.content else None)

    return send


class HttpSender:
    """A keep-alive HTTP connection; usable as a :data:`Send` (one per thread)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port

    def __call__(self, method: str, path: str, body: Any, version: str) -> tuple[int, Any]:
        headers = {
            "x-auth-token": "admin",
            "x-roles": "admin,service",
            "accept": "application/json",
            "openstack-api-version": f"placement {version}",
        }
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["content-type"] = "application/json"
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        return resp.status, (json.loads(raw) if raw else None)


def _claims_in_process(base: str, wanted: dict, seed: int) -> ClaimLog:
    return claim_until_full(HttpSender(base), wanted, seed)


# --- set-up ----------------------------------------------------------------------------


def make_provider(send: Send, **inventories: dict) -> str:
    rp = str(uuid.uuid4())
    status, _ = send("POST", "/resource_providers", {"name": rp, "uuid": rp}, "1.20")
    assert status == 200
    status, _ = send(
        "PUT",
        f"/resource_providers/{rp}/inventories",
        {"resource_provider_generation": 0, "inventories": inventories},
        "1.20",
    )
    assert status == 200
    return rp


@pytest.fixture(scope="module", params=rig.backends())
def in_process(request) -> Iterator[Send]:
    with rig.placement_app(request.param) as (app, _conf):
        yield wsgi_sender(app)


@pytest.fixture(scope="module", params=rig.backends())
def server(request) -> Iterator[str]:
    """gunicorn with three workers on a fresh database of each backend."""
    with rig.fresh_database(request.param) as url:
        rig.migrated(url)
        with gunicorn(url, workers=3) as base:
            yield base


def _scenario(send: Send) -> tuple[dict, dict]:
    """Two claim shapes sharing node ``a``: VCPU alone, or VCPU plus DISK_GB on ``b``."""
    a = make_provider(send, VCPU={"total": VCPU_TOTAL})
    b = make_provider(send, DISK_GB={"total": DISK_TOTAL})
    return {a: {"VCPU": 1}}, {a: {"VCPU": 1}, b: {"DISK_GB": 1}}


def _check_after_both_phases(
    send: Send, log: ClaimLog, single: dict, pair: dict, phase: int
) -> None:
    """Phase 1 (both shapes) stops when ``a`` or ``b`` is full; phase 2 fills ``a``."""
    a, b = list(pair)
    capacities = {a: {"VCPU": VCPU_TOTAL}, b: {"DISK_GB": DISK_TOTAL}}
    check_no_overcommit(send, log, capacities, full=False)
    vcpu = sum(claim[a]["VCPU"] for claim in log.claimed.values())
    disk = sum(claim[b]["DISK_GB"] for claim in log.claimed.values() if b in claim)
    assert vcpu == VCPU_TOTAL or (phase == 1 and disk == DISK_TOTAL)


# --- the tests -------------------------------------------------------------------------


def test_threads_in_process_never_overcommit(in_process):
    send = in_process
    single, pair = _scenario(send)
    log = ClaimLog()
    for phase, shapes in ((1, (single, pair)), (2, (single,))):
        with ThreadPoolExecutor(CLIENTS) as pool:
            for result in pool.map(
                lambda i, shapes=shapes: claim_until_full(send, shapes[i % len(shapes)], i),
                range(CLIENTS),
            ):
                log.merge(result)
        _check_after_both_phases(send, log, single, pair, phase)


def test_processes_against_gunicorn_never_overcommit(server):
    send = HttpSender(server)
    single, pair = _scenario(send)
    log = ClaimLog()
    with multiprocessing.get_context("fork").Pool(CLIENTS) as pool:
        for phase, shapes in ((1, (single, pair)), (2, (single,))):
            jobs = [
                pool.apply_async(_claims_in_process, (server, shapes[i % len(shapes)], i))
                for i in range(CLIENTS)
            ]
            for job in jobs:
                log.merge(job.get(timeout=120))
            _check_after_both_phases(send, log, single, pair, phase)


# --- a reshape racing with claims ------------------------------------------------------

VGPU_TOTAL = 40
EARLY_CONSUMERS = 3
CLAIMS_PER_CLIENT = 5


def _reshape_until_done(send: Send, root: str, child: str, deadline: float) -> int:
    """Move VGPU from ``root`` to ``child`` from a fresh snapshot until it works."""
    attempts = 0
    while time.monotonic() < deadline:
        attempts += 1
        status, held = send("GET", f"/resource_providers/{root}/allocations", None, "1.28")
        child_generation = send("GET", f"/resource_providers/{child}", None, "1.0")[1]["generation"]
        allocations = {}
        for consumer, share in held["allocations"].items():
            moved = {root: {"resources": {"VCPU": share["resources"]["VCPU"]}}}
            if "VGPU" in share["resources"]:
                moved[child] = {"resources": {"VGPU": share["resources"]["VGPU"]}}
            allocations[consumer] = {
                "allocations": moved,
                "project_id": "claims",
                "user_id": "claimer",
                "consumer_generation": share["consumer_generation"],
                "consumer_type": "INSTANCE",
            }
        status, body = send(
            "POST",
            "/reshaper",
            {
                "inventories": {
                    root: {
                        "resource_provider_generation": held["resource_provider_generation"],
                        "inventories": {"VCPU": {"total": 1000}},
                    },
                    child: {
                        "resource_provider_generation": child_generation,
                        "inventories": {"VGPU": {"total": VGPU_TOTAL}},
                    },
                },
                "allocations": allocations,
            },
            "1.38",
        )
        if status == 204:
            return attempts
        assert status == 409, (status, body)
        assert body["errors"][0]["code"] == "placement.concurrent_update", body
    raise AssertionError("reshape never got through")


def _claim_vgpu(send: Send, root: str, child: str, count: int) -> ClaimLog:
    """Claim VCPU on the root and VGPU wherever it lives at the moment."""
    log = ClaimLog()
    while len(log.claimed) < count:
        consumer = str(uuid.uuid4())
        for gpu_host in (root, child):
            wanted: dict[str, dict[str, int]] = {root: {"VCPU": 1}}
            wanted.setdefault(gpu_host, {})["VGPU"] = 1
            status, body = send("PUT", f"/allocations/{consumer}", _claim_body(wanted), "1.38")
            if status == 204:
                log.claimed[consumer] = wanted
                break
            if status >= 500:
                log.server_errors.append(f"{status} {body}")
                return log
            detail = body["errors"][0]["detail"]
            if status == 409 and body["errors"][0]["code"] == "placement.concurrent_update":
                log.conflicts += 1
                break
            assert status == 409 and "Inventory for 'VGPU'" in detail, (status, body)
    return log


def _watch(send: Send, consumers: list[str], stop: threading.Event) -> list[str]:
    """Read the early consumers while things move: never half moved, never gone."""
    seen_wrong = []
    while not stop.is_set():
        for consumer in consumers:
            held = send("GET", f"/allocations/{consumer}", None, "1.28")[1]["allocations"]
            vgpu = [
                share["resources"]["VGPU"]
                for share in held.values()
                if "VGPU" in share["resources"]
            ]
            vcpu = [
                share["resources"]["VCPU"]
                for share in held.values()
                if "VCPU" in share["resources"]
            ]
            if vgpu != [1] or vcpu != [1]:
                seen_wrong.append(f"{consumer}: {held}")
    return seen_wrong


def test_reshape_racing_with_claims_in_process(in_process):
    _reshape_race(lambda: in_process)


def test_reshape_racing_with_claims_against_gunicorn(server):
    _reshape_race(lambda: HttpSender(server))


def _reshape_race(make_send: Callable[[], Send]) -> None:
    send = make_send()
    root = make_provider(send, VCPU={"total": 1000}, VGPU={"total": VGPU_TOTAL})
    status, child_body = send(
        "POST", "/resource_providers", {"name": f"{root}-gpu", "parent_provider_uuid": root}, "1.20"
    )
    child = child_body["uuid"]
    early = _claim_vgpu(send, root, child, EARLY_CONSUMERS)

    stop = threading.Event()
    deadline = time.monotonic() + 60
    log = ClaimLog()
    log.merge(early)
    with ThreadPoolExecutor(CLIENTS + 2) as pool:
        watcher = pool.submit(_watch, make_send(), list(early.claimed), stop)
        try:
            claims = [
                pool.submit(_claim_vgpu, make_send(), root, child, CLAIMS_PER_CLIENT)
                for _ in range(CLIENTS)
            ]
            time.sleep(0.05)  # let the claims get going before the reshape starts
            reshaper = pool.submit(_reshape_until_done, make_send(), root, child, deadline)
            for claim in claims:
                log.merge(claim.result())
            reshaper.result()
        finally:
            stop.set()
        assert watcher.result() == []

    assert len(log.claimed) == EARLY_CONSUMERS + CLIENTS * CLAIMS_PER_CLIENT
    inventories = send("GET", f"/resource_providers/{root}/inventories", None, "1.0")[1]
    assert list(inventories["inventories"]) == ["VCPU"]
    # Whatever was claimed on the root before the reshape now sits on the child.
    log.claimed = {c: {root: {"VCPU": 1}, child: {"VGPU": 1}} for c in log.claimed}
    check_no_overcommit(send, log, {root: {"VCPU": 1000}, child: {"VGPU": VGPU_TOTAL}}, full=False)
