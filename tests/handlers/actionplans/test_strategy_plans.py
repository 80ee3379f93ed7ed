"""The capacity strategies end to end through the HTTP API: compute nodes and servers
written with Placement's routes, ``POST /v1/audits``, then the plan's actions as
``GET /v1/actions`` lists them (on a fresh database of every backend)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests import rig


@pytest.fixture
def app(backend: str) -> Iterator[Any]:
    with rig.placement_app(backend) as (wsgi_app, _conf):
        yield wsgi_app


def _ok(app: Any, method: str, path: str, body: Any = None, version: str = "1.38") -> Any:
    status, data = rig.call(app, method, path, body, version)
    assert status < 400, (method, path, status, data)
    return data


def _compute(app: Any, name: str, vcpu: int, memory: int | None = None) -> str:
    """A compute node provider ``name`` with VCPU and MEMORY_MB (512 MB per VCPU)."""
    rp = str(uuid.uuid4())
    _ok(app, "POST", "/resource_providers", {"name": name, "uuid": rp})
    inventories = {"VCPU": {"total": vcpu}, "MEMORY_MB": {"total": memory or 512 * vcpu}}
    _ok(
        app,
        "PUT",
        f"/resource_providers/{rp}/inventories",
        {"resource_provider_generation": 0, "inventories": inventories},
    )
    return rp


def _server(app: Any, node: str, vcpu: int, project: str = "project") -> str:
    """A server (consumer type INSTANCE) holding ``vcpu`` VCPU and 512 MB each on ``node``."""
    consumer = str(uuid.uuid4())
    body = {
        "allocations": {node: {"resources": {"VCPU": vcpu, "MEMORY_MB": 512 * vcpu}}},
        "project_id": project,
        "user_id": "user",
        "consumer_generation": None,
        "consumer_type": "INSTANCE",
    }
    status, data = rig.call(app, "PUT", f"/allocations/{consumer}", body, "1.38")
    assert status == 204, data
    return consumer


def _audit(app: Any, goal: str, strategy: str, parameters: dict) -> tuple[int, Any]:
    body = {"audit_type": "ONESHOT", "goal": goal, "strategy": strategy, "parameters": parameters}
    return rig.call(app, "POST", "/v1/audits", body)


def _plan(app: Any, goal: str, strategy: str, parameters: dict) -> tuple[dict, list[dict]]:
    """The stored plan of a new audit and its actions, in plan order."""
    status, audit = _audit(app, goal, strategy, parameters)
    assert status == 201, audit
    (plan,) = _ok(app, "GET", f"/v1/action_plans/detail?audit_uuid={audit['uuid']}")["action_plans"]
    actions = _ok(app, "GET", f"/v1/actions/detail?action_plan_uuid={plan['uuid']}")["actions"]
    return plan, actions


def _fault(body: dict) -> str:
    return str(json.loads(body["error_message"])["faultstring"])


def test_workload_stabilization_spreads_the_servers_of_one_node(app):
    n1 = _compute(app, "n1", 16)
    _compute(app, "n2", 16)
    _compute(app, "n3", 16)
    servers = [_server(app, n1, 4) for _ in range(3)]
    plan, actions = _plan(app, "workload_balancing", "workload_stabilization", {})
    assert plan["state"] == "RECOMMENDED"
    assert [a["action_type"] for a in actions] == ["migrate", "migrate"]
    moves = [a["input_parameters"] for a in actions]
    assert {m["resource_id"] for m in moves} < set(servers)
    assert sorted(m["destination_node"] for m in moves) == ["n2", "n3"]
    assert {m["source_node"] for m in moves} == {"n1"}
    indicators = {i["name"]: i["value"] for i in plan["efficacy_indicators"]}
    assert indicators["instance_migrations_count"] == 2
    assert indicators["standard_deviation_after_audit"] == pytest.approx(0)


def test_workload_stabilization_on_a_balanced_cloud_has_nothing_to_do(app):
    for name in ("n1", "n2"):
        _server(app, _compute(app, name, 16), 4)
    plan, actions = _plan(app, "workload_balancing", "workload_stabilization", {})
    assert (plan["state"], actions) == ("SUCCEEDED", [])


def test_workload_stabilization_refuses_a_metric_without_weight(app):
    _compute(app, "n1", 16)
    parameters = {
        "metrics": ["instance_ram_usage"],
        "weights": {"instance_cpu_usage_weight": 1.0},
    }
    status, body = _audit(app, "workload_balancing", "workload_stabilization", parameters)
    assert status == 400
    assert "weight for instance_ram_usage" in _fault(body)
    assert _ok(app, "GET", "/v1/audits")["audits"] == []


def test_zone_migration_drains_nodes_under_its_parallel_limits(app):
    """Three servers on w1 and one on w2 to ``new``, one at a time per node and two in
    all: each action's parents are the uuids of the actions it waits for."""
    w1, w2 = _compute(app, "w1", 16), _compute(app, "w2", 16)
    _compute(app, "new", 32)
    on_w1 = [_server(app, w1, 1, project="p1") for _ in range(3)]
    on_w2 = _server(app, w2, 2, project="p2")
    parameters = {
        "compute_nodes": [{"src_node": "w1", "dst_node": "new"}, {"src_node": "w2"}],
        "parallel_total": 2,
        "parallel_per_node": 1,
        "priority": {"project": ["p2"]},
    }
    plan, actions = _plan(app, "hardware_maintenance", "zone_migration", parameters)
    assert plan["state"] == "RECOMMENDED"
    moved = [a["input_parameters"]["resource_id"] for a in actions]
    assert moved == [on_w2, *on_w1]
    assert {a["input_parameters"]["destination_node"] for a in actions} == {"new"}
    uuids = [a["uuid"] for a in actions]
    assert [sorted(a["parents"]) for a in actions] == [
        [],
        [],
        sorted([uuids[0], uuids[1]]),
        sorted([uuids[1], uuids[2]]),
    ]


def test_zone_migration_refuses_storage_pools(app):
    _compute(app, "w1", 16)
    parameters = {"storage_pools": [{"src_pool": "a@b#c", "dst_pool": "d@e#f"}]}
    status, body = _audit(app, "hardware_maintenance", "zone_migration", parameters)
    assert status == 400
    assert "storage_pools is not supported" in _fault(body)


def test_saving_energy_powers_off_the_surplus_empty_nodes(app):
    """One node in use and three empty: one stays on as standby (the defaults), two
    are powered off, both at once (the weight planner's parallelization of 2)."""
    _server(app, _compute(app, "n1", 8), 2)
    empty = {name: _compute(app, name, 8) for name in ("e1", "e2", "e3")}
    plan, actions = _plan(app, "saving_energy", "saving_energy", {})
    assert [a["action_type"] for a in actions] == ["change_node_power_state"] * 2
    assert [a["parents"] for a in actions] == [[], []]
    assert [a["input_parameters"] for a in actions] == [
        {"state": "off", "resource_name": name, "resource_id": empty[name]} for name in ("e3", "e2")
    ]
    status, body = _audit(app, "saving_energy", "saving_energy", {"min_free_hosts_num": "2"})
    assert status == 400
    assert "'2' is not of type 'number'" in _fault(body)
