"""workload_stabilization end to end: with the real Prometheus of ``seeded.py`` it
balances measured CPU; with no datasource configured it still plans, by allocated
share, and says so in the plan and in ``strategy state``. On every configured database.

compute1 (``compute1.example.com`` on its target) is fully busy and holds the
measured server (0.8 CPU-seconds a second on 2 vCPUs: 40 %); compute2 is idle;
compute3 is a quarter busy and holds a server Prometheus has no series of;
compute4 has no scrape target.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from placement.actionplans.requirements import BY_ALLOCATION as STATE_BY_ALLOCATION
from placement.actionplans.strategies.workload_stabilization import BY_ALLOCATION
from tests import rig
from tests.datasources.cloud import add_node, add_server, moves, plan_of, post_audit
from tests.datasources.seeded import ABSENT, SERVER
from tests.server import free_port


def _options(server: Any) -> dict:
    return {
        "watcher_datasources": {"datasources": ["prometheus"]},
        "prometheus_client": {"host": "127.0.0.1", "port": server.port},
    }


@pytest.fixture(params=rig.backends())
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def measured_app(backend: str, server: Any) -> Iterator[Any]:
    with rig.placement_app(backend, **_options(server)) as (wsgi_app, _conf):
        yield wsgi_app


@pytest.fixture
def bare_app(backend: str) -> Iterator[Any]:
    with rig.placement_app(backend) as (wsgi_app, _conf):
        yield wsgi_app


def _audit(app: Any) -> tuple[dict, list[tuple[str, str, str]]]:
    plan, actions = plan_of(app, post_audit(app, "workload_balancing", "workload_stabilization"))
    return plan, moves(actions)


def _datasource_row(app: Any) -> str:
    status, rows = rig.call(app, "GET", "/v1/strategies/workload_stabilization/state")
    assert status == 200
    return next(row["state"] for row in rows if row["type"] == "Datasource")


def test_the_busy_node_is_relieved_on_measured_load(measured_app) -> None:
    app = measured_app
    add_server(app, SERVER, add_node(app, "compute1"))
    add_node(app, "compute2")
    add_server(app, ABSENT, add_node(app, "compute3"))
    add_node(app, "compute4")
    plan, moves = _audit(app)
    # CPU shares 1.0 / 0 / .25: the server's 0.8 cores (a tenth of 8) go to the idle node,
    # though by allocation compute1 and compute3 hold the same.
    assert moves == [(SERVER, "compute1", "compute2")]
    assert "No value for host_cpu_usage of node compute4" in plan["status_message"]
    assert f"No value for instance_cpu_usage of server {ABSENT}" in plan["status_message"]
    assert BY_ALLOCATION not in plan["status_message"]
    assert _datasource_row(app) == "prometheus: available"


def test_without_a_datasource_it_balances_allocations_and_says_so(bare_app) -> None:
    app = bare_app
    full = add_node(app, "compute1")
    add_server(app, str(uuid.uuid4()), full)
    add_server(app, str(uuid.uuid4()), full)
    add_node(app, "compute2")
    plan, moves = _audit(app)
    assert [(source, destination) for _, source, destination in moves] == [("compute1", "compute2")]
    assert plan["status_message"] == BY_ALLOCATION
    assert _datasource_row(app) == STATE_BY_ALLOCATION


def test_a_configured_datasource_that_does_not_answer_fails_the_audit(backend) -> None:
    options = {
        "watcher_datasources": {"datasources": ["prometheus"]},
        "prometheus_client": {"host": "127.0.0.1", "port": free_port()},
    }
    with rig.placement_app(backend, **options) as (app, _conf):
        add_server(app, str(uuid.uuid4()), add_node(app, "compute1"))
        audit = post_audit(app, "workload_balancing", "workload_stabilization")
        assert audit["state"] == "FAILED"
        assert "does not answer" in audit["status_message"]
