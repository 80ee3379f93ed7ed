"""Placement on a real three-node MariaDB Galera cluster, directly and behind HAProxy.

* Three writing nodes: many concurrent claimers (an app per node, each on
  its own threads) consume exactly the provider's capacity: nothing over
  it, no accepted claim missing, nothing held that was not accepted, no 500
  (certification conflicts are retried within ``db_max_retry_time``).
* A node SIGKILLed behind HAProxy (round-robin, and active/backup with the
  active one killed) and started again while clients claim: no claim lost
  or doubled, no 5xx.
* With ``mysql_wsrep_sync_wait = 1``, a claim through one node followed at
  once by a read through another always reads the claim.
* The leases: two appliers claiming one plan, and two audit runners one
  due audit, through node 1 and node 2 at the same moment: exactly one wins.

The cluster is started once per session (``conftest.py``); each test makes
its own database on it. Figures (rates, gaps) are measured by
``benchmarks/galera.py``, never asserted here.
"""

from __future__ import annotations

import datetime
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import sqlalchemy
from sqlalchemy.pool import NullPool

from placement import db
from placement.actionplans import states
from placement.applier import patience
from placement.db.tables import utcnow
from placement.objects import claim_doubt
from placement.objects.actionplans import audit_runs, execution, plans
from placement.wsgi import create_app
from tests import rig
from tests.galera import cluster
from tests.objects.actionplans.store import Store

VERSION = "1.28"


def _app(url: str, **database: object) -> object:
    return create_app(rig.make_conf(url, placement_database=database))


def _provider(app, total: int) -> str:
    provider = str(uuid.uuid4())
    status, _ = rig.call(app, "POST", "/resource_providers", {"name": provider, "uuid": provider})
    assert status in (200, 201)
    inventory = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}}
    status, body = rig.call(app, "PUT", f"/resource_providers/{provider}/inventories", inventory)
    assert status == 200, body
    return provider


def _claim(app, provider: str, consumer: str) -> tuple[int, str]:
    body = {
        "allocations": {provider: {"resources": {"VCPU": 1}}},
        "project_id": "p",
        "user_id": "u",
        "consumer_generation": None,
    }
    status, answer = rig.call(app, "PUT", f"/allocations/{consumer}", body, version=VERSION)
    code = answer["errors"][0].get("code", "") if answer and "errors" in answer else ""
    return status, code


@dataclass
class Claims:
    """Every answer the claimers got: consumer → status, and the 409 codes."""

    answers: dict[str, int]
    codes: list[str]

    @property
    def accepted(self) -> set[str]:
        return {c for c, status in self.answers.items() if status == 204}

    @property
    def server_errors(self) -> dict[str, int]:
        return {c: status for c, status in self.answers.items() if status >= 500}


def _claimers(apps: list, provider: str, clients: int, until: Callable[[], bool]) -> Claims:
    """``clients`` threads over ``apps`` claiming 1 VCPU each time for a new consumer,
    until ``until()`` or the provider is full (a 409 that is no concurrent update)."""
    claims = Claims({}, [])
    lock = threading.Lock()
    full = threading.Event()

    def work(index: int) -> None:
        app = apps[index % len(apps)]
        while not (full.is_set() or until()):
            consumer = str(uuid.uuid4())
            status, code = _claim(app, provider, consumer)
            with lock:
                claims.answers[consumer] = status
                if status == 409:
                    claims.codes.append(code)
            if status == 409 and code != "placement.concurrent_update":
                full.set()

    rig.run_together(clients, work, timeout=240)
    return claims


def _held(app, provider: str) -> dict[str, int]:
    """What each consumer holds on ``provider`` (VCPU)."""
    status, body = rig.call(app, "GET", f"/resource_providers/{provider}/allocations")
    assert status == 200
    return {c: share["resources"]["VCPU"] for c, share in body["allocations"].items()}


def _check_exactly_once(claims: Claims, held: dict[str, int]) -> None:
    assert claims.server_errors == {}, claims.server_errors
    assert set(held) - claims.accepted == set(), "phantom: held but never accepted"
    assert claims.accepted - set(held) == set(), "lost: accepted but not held"
    assert all(amount == 1 for amount in held.values()), "a claim was doubled"


def test_three_writing_nodes_consume_exactly_capacity(database):
    apps = [_app(url) for url in database]
    try:
        capacity = 60
        provider = _provider(apps[0], capacity)
        claims = _claimers(apps, provider, clients=30, until=lambda: False)
        held = _held(apps[1], provider)
        _check_exactly_once(claims, held)
        assert len(claims.accepted) == capacity
        assert sum(held.values()) == capacity
    finally:
        for app in apps:
            app.placement_engine.dispose()


@pytest.mark.parametrize("layout", ["round_robin", "active_backup"])
def test_a_node_killed_behind_haproxy_loses_and_doubles_nothing(galera, database, layout):
    nodes, proxy = galera
    port = getattr(proxy, layout)
    apps = [_app(cluster.through(database[0], port)) for _ in range(2)]
    victim = nodes.nodes[0] if layout == "active_backup" else nodes.nodes[1]
    try:
        provider = _provider(apps[0], 100_000)
        done = threading.Event()

        def crash_and_return() -> None:
            time.sleep(1.0)
            victim.kill()
            nodes.wait_evicted(victim)
            nodes.restart(victim)
            time.sleep(1.0)
            done.set()

        crasher = threading.Thread(target=crash_and_return)
        crasher.start()
        claims = _claimers(apps, provider, clients=8, until=done.is_set)
        crasher.join()
        _check_exactly_once(claims, _held(apps[1], provider))
        assert claims.accepted
    finally:
        if not victim.running:
            nodes.restart(victim)
        for app in apps:
            app.placement_engine.dispose()


def test_with_wsrep_sync_wait_a_read_through_another_node_sees_the_claim(database):
    writer, reader = (_app(url, mysql_wsrep_sync_wait=1) for url in database[:2])
    try:
        provider = _provider(writer, 1000)
        stale = 0
        for _ in range(100):
            consumer = str(uuid.uuid4())
            assert _claim(writer, provider, consumer) == (204, "")
            status, body = rig.call(reader, "GET", f"/allocations/{consumer}", version=VERSION)
            assert status == 200
            stale += provider not in body["allocations"]
        assert stale == 0
    finally:
        writer.placement_engine.dispose()
        reader.placement_engine.dispose()


def test_a_doubted_claim_is_read_back_from_a_node_that_has_caught_up(database):
    """The claim landed through node 1; node 2 has not applied it yet (FLUSH
    TABLES WITH READ LOCK holds its applier for a second). Asked through node 2
    whether the claim landed, the read-back waits for node 2 to catch up and
    says it did. Read there as is, it would say it did not, and the claim would
    run again and answer an error for what it holds."""
    writer = _app(database[0])
    behind = db.engine_from_url(database[1])
    holder = sqlalchemy.create_engine(database[1], poolclass=NullPool).connect()
    try:
        provider, consumer = _provider(writer, 10), str(uuid.uuid4())
        holder.exec_driver_sql("FLUSH TABLES WITH READ LOCK")
        releasing = threading.Timer(1.0, holder.exec_driver_sql, ("UNLOCK TABLES",))
        try:
            assert _claim(writer, provider, consumer) == (204, "")
            _, held = rig.call(writer, "GET", f"/allocations/{consumer}", version=VERSION)
            mark = claim_doubt.Mark(
                consumer, None, held["consumer_generation"], {provider: {"VCPU": 1}}
            )
            releasing.start()
            found = claim_doubt.verdict(behind, [mark], db.retry_policy_of(behind).budget())
        finally:
            releasing.cancel()
            releasing.join()
            holder.exec_driver_sql("UNLOCK TABLES")
        assert found is claim_doubt.Verdict.LANDED
    finally:
        holder.close()
        behind.dispose()
        writer.placement_engine.dispose()


LEASE = datetime.timedelta(seconds=60)


def test_two_appliers_on_two_nodes_never_both_claim_a_plan(database):
    """Each round: one started plan, claimed at one moment through node 1 and
    node 2, as the applier does (database errors waited out). A lost Galera
    certification at COMMIT is an error the loser retries, never a win."""
    app = _app(database[0])
    engines = [db.engine_from_url(url, mysql_wsrep_sync_wait=1) for url in database[1:]]
    stop = threading.Event()
    try:
        store = Store(app, "mysql")
        for _ in range(5):
            plan = plans.start_plan(store.engine, store.plan_of(store.audit()).uuid)

            def claim(index: int) -> execution.Claim | None:
                return patience.patiently(
                    lambda: execution.claim_next(engines[index], f"applier-{index}", LEASE),
                    stop,
                    "claiming",
                )

            results = rig.run_together(2, claim)
            assert not any(isinstance(r, BaseException) for r in results), results
            winners = [(i, r) for i, r in enumerate(results) if r is not None]
            assert len(winners) == 1, results
            index, won = winners[0]
            assert won.uuid == plan.uuid
            assert execution.owned_state(engines[1 - index], plan.id, f"applier-{index}")
            assert execution.owned_state(engines[index], plan.id, f"applier-{1 - index}") is None
            execution.finish_plan(
                engines[index], plan.id, f"applier-{index}", states.SUCCEEDED, None
            )
    finally:
        stop.set()
        app.placement_engine.dispose()
        for engine in engines:
            engine.dispose()


def test_two_audit_runners_on_two_nodes_never_both_claim_an_audit(database):
    """Each round: one due CONTINUOUS audit (the earlier ones stay leased),
    claimed at one moment through node 1 and node 2, errors waited out as
    the runner does: exactly one runner gets it."""
    app = _app(database[0])
    engines = [db.engine_from_url(url, mysql_wsrep_sync_wait=1) for url in database[1:]]
    stop = threading.Event()
    try:
        store = Store(app, "mysql")
        for _ in range(5):
            audit = store.audit(audit_type="CONTINUOUS", interval="3600")

            def claim(index: int) -> audit_runs.AuditClaim | None:
                return patience.patiently(
                    lambda: audit_runs.claim_due(
                        engines[index], f"runner-{index}", socket.gethostname(), LEASE, utcnow()
                    ),
                    stop,
                    "claiming",
                )

            results = rig.run_together(2, claim)
            assert not any(isinstance(r, BaseException) for r in results), results
            winners = [r for r in results if r is not None]
            assert len(winners) == 1, results
            assert winners[0].uuid == audit.uuid
    finally:
        stop.set()
        app.placement_engine.dispose()
        for engine in engines:
            engine.dispose()
