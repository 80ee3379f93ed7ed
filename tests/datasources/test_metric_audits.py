"""The metric strategies end to end: Placement's data written through its API, the
load in a real Prometheus (``seeded.py``, pushed as watcher-tempest-plugin pushes
it), ``POST /v1/audits`` naming ``basic``, and the plan the audit stored.

compute2 is idle and holds the measured server; compute3 is a quarter busy and
holds a server Prometheus has no series of; compute1 (``compute1.example.com`` on
its scrape target) is fully loaded but empty, so, as upstream, it gets no score
and takes nothing; compute4 has no scrape target at all. ``basic`` releases the
least loaded node onto the busiest scored one with room, leaves compute4 out
and says why in the plan's ``status_message``. On every configured database.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests import rig
from tests.datasources.cloud import add_node, add_server, moves, plan_of, post_audit
from tests.datasources.seeded import ABSENT, SERVER


@pytest.fixture(params=rig.backends())
def app(request: pytest.FixtureRequest, server: Any) -> Iterator[Any]:
    options = {
        "watcher_datasources": {"datasources": ["prometheus"]},
        "prometheus_client": {"host": "127.0.0.1", "port": server.port},
    }
    with rig.placement_app(request.param, **options) as (wsgi_app, _conf):
        yield wsgi_app


def test_basic_releases_the_idle_node_and_says_what_it_did_not_measure(app) -> None:
    add_node(app, "compute1")
    idle = add_node(app, "compute2")
    add_server(app, SERVER, idle)
    add_server(app, ABSENT, add_node(app, "compute3"))
    add_server(app, str(uuid.uuid4()), add_node(app, "compute4"))
    plan, actions = plan_of(app, post_audit(app, "server_consolidation", "basic"))
    assert moves(actions) == [(SERVER, "compute2", "compute3")]
    disabled = [
        a["input_parameters"]["resource_name"]
        for a in actions
        if a["action_type"] == "change_nova_service_state"
    ]
    assert disabled == ["compute2"]
    assert plan["state"] == "RECOMMENDED"
    assert "No value for host_cpu_usage of node compute4" in plan["status_message"]
