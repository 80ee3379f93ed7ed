"""Audits of a strategy that reads measured load, through the API and the audit runner.

The strategy is ``tests/measuring.py``'s stand-in; the datasource is the real
Prometheus of ``seeded.py``, named by the configuration as an operator names it.
On every configured database.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from placement import datasources
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.measured import Query
from placement.actionplans.planners import PlannerOptions
from placement.auditrunner.run import Outcome
from placement.auditrunner.service import AuditRunner
from placement.objects.actionplans import audits
from tests import measuring, rig
from tests.datasources.seeded import ABSENT, LOADED, SERVER
from tests.server import free_port

RAM = Query("instance_ram_usage", SERVER, 300)
HOST_RAM = Query("host_ram_usage", "compute1", 300)
MISSING = Query("instance_ram_usage", ABSENT, 300)
QUERIES = (RAM, HOST_RAM, MISSING)


def _prometheus(port: int, **more: Any) -> dict:
    return {
        "watcher_datasources": {"datasources": ["gnocchi", "prometheus"], **more},
        "prometheus_client": {"host": "127.0.0.1", "port": port},
    }


@pytest.fixture(params=rig.backends())
def app_with(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Builds an app on a fresh database of each backend with option overrides."""
    with contextlib.ExitStack() as stack:
        yield lambda **overrides: stack.enter_context(rig.placement_app(request.param, **overrides))


def _post_audit(app: Any) -> dict:
    """POST an audit of the measuring strategy at the newest infra-optim version
    (``status_message`` is shown from 1.5)."""
    headers = {
        "X-Auth-Token": "admin",
        "Content-Type": "application/json",
        "OpenStack-API-Version": "infra-optim latest",
    }
    reply = rig.request(
        app, "POST", "/v1/audits", headers, json.dumps(measuring.audit_body()).encode()
    )
    assert reply.status == 201, reply.body
    return reply.json()


def test_an_audit_is_measured_outside_any_transaction_before_it_solves(
    server, app_with, monkeypatch
) -> None:
    seen = measuring.measuring(monkeypatch, QUERIES)
    app, _conf = app_with(**_prometheus(server.port))
    engine: Engine = app.placement_engine
    real = datasources.measure
    open_connections: list[int] = []

    def watched(conf, strategy, queries):
        open_connections.append(engine.pool.checkedout())
        return real(conf, strategy, queries)

    monkeypatch.setattr(datasources, "measure", watched)
    body = _post_audit(app)
    assert body["state"] == "SUCCEEDED"
    assert open_connections == [0]
    (world,) = seen
    got = world.measurements
    assert got.datasource == "prometheus"
    assert got.value(RAM) == int(2048 * 0.8)
    assert got.value(HOST_RAM) == (4096 - int(4096 * 0.2)) * 1024
    assert got.missing() == [
        (
            MISSING,
            f"no series answers avg_over_time(ceilometer_memory_usage"
            f"{{resource='{ABSENT}'}}[300s])",
        )
    ]


@pytest.mark.parametrize(
    "overrides, message",
    [
        (
            {},
            "Strategy node_resource_consolidation reads measured load, but no datasource "
            "answers: gnocchi: not served here (use prometheus); grafana: not served here "
            "(use prometheus); aetos: not served here (Prometheus behind Keystone; use "
            "prometheus)",
        ),
        (
            {"watcher_datasources": {"datasources": ["prometheus"]}},
            "Strategy node_resource_consolidation reads measured load, but no datasource "
            "answers: prometheus: not configured (no [prometheus_client] host)",
        ),
    ],
)
def test_no_datasource_stores_the_audit_failed_saying_why(
    app_with, monkeypatch, overrides, message
) -> None:
    seen = measuring.measuring(monkeypatch, QUERIES)
    app, _conf = app_with(**overrides)
    body = _post_audit(app)
    assert (body["state"], body["status_message"]) == ("FAILED", message)
    assert seen == []
    status, listed = rig.call(app, "GET", "/v1/action_plans")
    assert status == 200 and listed["action_plans"] == []


def test_prometheus_down_fails_the_audit_with_its_address(app_with, monkeypatch) -> None:
    measuring.measuring(monkeypatch, QUERIES)
    port = free_port()
    app, _conf = app_with(**_prometheus(port))
    body = _post_audit(app)
    assert body["state"] == "FAILED"
    assert (
        f"prometheus: prometheus at http://127.0.0.1:{port}/api/v1/ does not answer"
        in (body["status_message"])
    )


def test_strategy_state_names_the_datasource_and_its_meters(server, app_with, monkeypatch) -> None:
    measuring.measuring(monkeypatch, QUERIES)
    app, _conf = app_with(**_prometheus(server.port))
    status, rows = rig.call(app, "GET", f"/v1/strategies/{measuring.NAME}/state")
    assert status == 200
    by_type = {row["type"]: row["state"] for row in rows}
    assert by_type["Datasource"] == "prometheus: available"
    assert by_type["Metrics"] == [
        {"node_cpu_seconds_total": "available"},
        {"node_memory_MemAvailable_bytes": "available"},
        {"ceilometer_cpu": "available"},
        {"ceilometer_memory_usage": "available"},
    ]


def test_strategy_state_says_why_no_datasource_answers(app_with, monkeypatch) -> None:
    measuring.measuring(monkeypatch, QUERIES)
    app, _conf = app_with()
    status, rows = rig.call(app, "GET", f"/v1/strategies/{measuring.NAME}/state")
    assert status == 200
    datasource = next(row for row in rows if row["type"] == "Datasource")
    assert datasource["state"].startswith(
        "Strategy node_resource_consolidation reads measured load, but no datasource answers"
    )


def test_the_audit_runner_measures_with_what_it_is_given(server, app_with, monkeypatch) -> None:
    seen = measuring.measuring(monkeypatch, QUERIES)
    app, conf = app_with(**_prometheus(server.port))
    engine = app.placement_engine
    body = measuring.audit_body("CONTINUOUS", interval="60", name=f"c-{uuid.uuid4().hex[:8]}")
    audit = audits.create_audit(engine, PlannerOptions(), AuditRequest.from_body(body))
    clock = lambda: datetime.datetime(2030, 1, 1)  # noqa: E731
    runner = AuditRunner(
        engine=engine, options=PlannerOptions(), clock=clock, measure=datasources.measurer(conf)
    )
    assert runner.run_due() == [(audit.uuid, Outcome.PLANNED)]
    (world,) = seen
    assert world.measurements.value(RAM) == int(2048 * 0.8)


def test_an_audit_runner_without_a_datasource_fails_the_audit(app_with, monkeypatch) -> None:
    measuring.measuring(monkeypatch, QUERIES)
    app, _conf = app_with()
    engine = app.placement_engine
    body = measuring.audit_body("CONTINUOUS", interval="60", name=f"c-{uuid.uuid4().hex[:8]}")
    audit = audits.create_audit(engine, PlannerOptions(), AuditRequest.from_body(body))
    runner = AuditRunner(
        engine=engine, options=PlannerOptions(), clock=lambda: datetime.datetime(2030, 1, 1)
    )
    assert runner.run_due() == [(audit.uuid, Outcome.FAILED)]
    failed = audits.get_audit(engine, audit.uuid)
    assert failed.state == "FAILED"
    assert failed.status_message == (
        "Strategy node_resource_consolidation reads measured load, but no datasource "
        "answers: none is configured ([watcher_datasources] datasources)"
    )


def test_the_loaded_host_is_found_by_its_short_name(server) -> None:
    """The configuration's own path: measure() chooses prometheus and reads by short name."""
    conf = rig.make_conf("sqlite://", **_prometheus(server.port))
    query = Query("host_cpu_usage", LOADED.split(".")[0], 300)
    got = datasources.measure(conf, "basic", (query,))
    assert got.value(query) == pytest.approx(100.0)
