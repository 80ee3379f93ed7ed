"""Capacity strategies through audit creation: the snapshot read from our tables, plans
stored with explicit destinations, refusals storing nothing, and the plan then applied."""

from __future__ import annotations

import datetime

import os_traits
import pytest
import sqlalchemy

from placement.actionplans import errors
from placement.actionplans.action_types import names
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import PlannerOptions
from placement.db import reader
from placement.effects.migrate import MIGRATE
from placement.effects.power_state import CHANGE_NODE_POWER_STATE
from placement.effects.service_state import CHANGE_NOVA_SERVICE_STATE
from placement.objects.actionplans import actions, audits, paging, plans
from placement.objects.actionplans.world import read_world

#: node_resource_consolidation writing its destinations (and changing no service).
SPECIFY = {"host_choice": "specify"}
EFFECTS = {
    names.MIGRATE: MIGRATE,
    names.CHANGE_NOVA_SERVICE_STATE: CHANGE_NOVA_SERVICE_STATE,
    names.CHANGE_NODE_POWER_STATE: CHANGE_NODE_POWER_STATE,
}

GOALS = {
    "host_maintenance": "cluster_maintaining",
    "node_resource_consolidation": "server_consolidation",
    "saving_energy": "saving_energy",
}


def _audit(cloud, strategy: str, parameters: dict) -> audits.Audit:
    goal = GOALS[strategy]
    fields = {"goal": goal, "strategy": strategy, "audit_type": "ONESHOT", "parameters": parameters}
    return audits.create_audit(cloud.engine, PlannerOptions(), AuditRequest.from_body(fields))


def _plan(cloud, audit: audits.Audit) -> plans.ActionPlan:
    (plan,) = plans.list_plans(cloud.engine, paging.Page(), audit_uuid=audit.uuid)
    return plan


def _actions(cloud, audit: audits.Audit) -> list[actions.Action]:
    plan = _plan(cloud, audit)
    return actions.list_actions(cloud.engine, paging.Page(), action_plan_uuid=plan.uuid)


def _audit_count(cloud) -> int:
    return len(audits.list_audits(cloud.engine, paging.Page()))


def test_world_reads_trees_capacity_totals_usage_and_disabled(cloud):
    node = cloud.node("h1", VCPU={"total": 8, "reserved": 2, "allocation_ratio": 2.0})
    gpu = cloud.node("h1-gpu", parent=node, VGPU=4)
    off = cloud.node("h2", VCPU=4)
    cloud.add_traits(off, os_traits.COMPUTE_STATUS_DISABLED)
    pool = cloud.node("pool", DISK_GB=100)
    cloud.add_traits(pool, os_traits.MISC_SHARES_VIA_AGGREGATE)
    vm = cloud.claim({node.uuid: {"VCPU": 3}, gpu.uuid: {"VGPU": 1}, pool.uuid: {"DISK_GB": 5}})
    with reader(cloud.engine) as conn:
        world = read_world(conn)
    assert [n.name for n in world.nodes] == ["h1", "h2"]
    h1, h2 = world.nodes
    assert h1.capacity == {"VCPU": 12, "VGPU": 4}
    assert h1.totals == {"VCPU": 8, "VGPU": 4}  # the host's own size: no reserved, no ratio
    assert h1.usage == {"VCPU": 3, "VGPU": 1}
    assert [(c.uuid, dict(c.amounts)) for c in h1.consumers] == [(vm, {"VCPU": 3, "VGPU": 1})]
    assert (h1.disabled, h2.disabled) == (False, True)


def _read_counting_statements(cloud):
    seen = []

    def count(*_args):
        seen.append(1)

    with reader(cloud.engine) as conn:
        sqlalchemy.event.listen(conn, "before_cursor_execute", count)
        try:
            world = read_world(conn)
        finally:
            sqlalchemy.event.remove(conn, "before_cursor_execute", count)
    return world, len(seen)


def test_world_knows_which_consumers_are_servers(cloud):
    """Nova's MIGRATION allocations count in the node's usage but are not movable; an
    INSTANCE and an untyped consumer (written before microversion 1.38) are. The
    snapshot is still three statements (roots, inventories, allocations)."""
    h1 = cloud.node("h1", VCPU=16, MEMORY_MB=4096)
    cloud.node("h2", VCPU=16, MEMORY_MB=4096)
    server = cloud.claim({h1.uuid: {"VCPU": 2, "MEMORY_MB": 512}}, consumer_type="INSTANCE")
    moving = cloud.claim({h1.uuid: {"VCPU": 4, "MEMORY_MB": 1024}}, consumer_type="MIGRATION")
    old = cloud.claim({h1.uuid: {"VCPU": 1}})
    world, statements = _read_counting_statements(cloud)
    assert statements == 3
    node = world.node("h1")
    assert node is not None
    assert node.usage == {"VCPU": 7, "MEMORY_MB": 1536}
    assert [(c.uuid, c.consumer_type, c.movable) for c in node.consumers] == [
        (server, "INSTANCE", True),
        (moving, "MIGRATION", False),
        (old, None, True),
    ]


def test_world_reads_each_consumers_project_and_creation_time(cloud):
    """What zone_migration's priorities order servers by."""
    h1 = cloud.node("h1", VCPU=16)
    server = cloud.claim({h1.uuid: {"VCPU": 2}}, consumer_type="INSTANCE")
    with reader(cloud.engine) as conn:
        (consumer,) = read_world(conn).nodes[0].consumers
    assert (consumer.uuid, consumer.project) == (server, "project")
    assert isinstance(consumer.created_at, datetime.datetime)


def test_host_maintenance_moves_only_servers(cloud):
    """On the maintenance node an INSTANCE and a MIGRATION consumer: only the instance
    is migrated; the destination's own MIGRATION usage leaves it no room for it."""
    h1 = cloud.node("h1", VCPU=16)
    full = cloud.node("h2", VCPU=8)
    roomy = cloud.node("h3", VCPU=6)
    server = cloud.claim({h1.uuid: {"VCPU": 4}}, consumer_type="INSTANCE")
    cloud.claim({h1.uuid: {"VCPU": 2}}, consumer_type="MIGRATION")
    cloud.claim({full.uuid: {"VCPU": 5}}, consumer_type="MIGRATION")
    audit = _audit(cloud, "host_maintenance", {"maintenance_node": "h1"})
    stored = _actions(cloud, audit)
    assert [(a.action_type, a.input_parameters.get("resource_id")) for a in stored] == [
        (names.CHANGE_NOVA_SERVICE_STATE, h1.uuid),
        (names.MIGRATE, server),
    ]
    assert stored[1].input_parameters["destination_node"] == roomy.name


def test_host_maintenance_plan_is_stored_and_applies(cloud):
    h1 = cloud.node("h1", VCPU=16)
    h2 = cloud.node("h2", VCPU=4)
    h3 = cloud.node("h3", VCPU=4)
    vms = [cloud.claim({h1.uuid: {"VCPU": n}}) for n in (3, 3, 1)]
    audit = _audit(cloud, "host_maintenance", {"maintenance_node": "h1"})
    stored = _actions(cloud, audit)
    disable, *migrates = (a.action_type for a in stored)
    assert (disable, migrates) == (names.CHANGE_NOVA_SERVICE_STATE, [names.MIGRATE] * 3)
    for action in stored:
        outcome = cloud.run(EFFECTS[action.action_type], action.input_parameters)
        assert outcome.state == "SUCCEEDED"
    assert os_traits.COMPUTE_STATUS_DISABLED in cloud.traits(h1)
    assert all(set(cloud.held(vm)) <= {h2.uuid, h3.uuid} for vm in vms)
    assert cloud.usage(h1) == {"VCPU": 0}
    cloud.consistent()


def test_unplaceable_consumers_fail_the_audit_and_store_nothing(cloud):
    h1 = cloud.node("h1", VCPU=16)
    cloud.node("h2", VCPU=4)
    big = cloud.claim({h1.uuid: {"VCPU": 8}})
    before = _audit_count(cloud)
    with pytest.raises(errors.ConsumersCannotBePlaced, match=big):
        _audit(cloud, "host_maintenance", {"maintenance_node": "h1"})
    with pytest.raises(errors.NodeNotFound):
        _audit(cloud, "host_maintenance", {"maintenance_node": "ghost"})
    assert _audit_count(cloud) == before


def test_consolidation_plan_is_stored_with_efficacy(cloud):
    h1 = cloud.node("h1", VCPU=8)
    h2 = cloud.node("h2", VCPU=8)
    cloud.claim({h1.uuid: {"VCPU": 2}})
    cloud.claim({h2.uuid: {"VCPU": 4}})
    audit = _audit(cloud, "node_resource_consolidation", {"host_choice": "auto"})
    stored = _actions(cloud, audit)
    assert [a.action_type for a in stored] == [names.CHANGE_NOVA_SERVICE_STATE, names.MIGRATE]
    assert "destination_node" not in stored[1].input_parameters
    assert list(stored[1].parents) == [stored[0].uuid]
    assert _plan(cloud, audit).global_efficacy[0]["value"] == 50
    specified = _actions(cloud, _audit(cloud, "node_resource_consolidation", SPECIFY))
    assert [(a.action_type, a.input_parameters["destination_node"]) for a in specified] == [
        (names.MIGRATE, "h2")
    ]


def test_saving_energy_powers_off_the_surplus_then_on_again(cloud):
    """Three empty nodes beside one in use: two go off (the last first) and the world
    reads them off; asked for three free nodes, the next audit powers both on."""
    h1 = cloud.node("h1", VCPU=8)
    empty = [cloud.node(name, VCPU=8) for name in ("e1", "e2", "e3")]
    cloud.claim({h1.uuid: {"VCPU": 2}})
    off = _actions(cloud, _audit(cloud, "saving_energy", {}))
    assert [(a.input_parameters["resource_name"], a.input_parameters["state"]) for a in off] == [
        ("e3", "off"),
        ("e2", "off"),
    ]
    for action in off:
        assert cloud.run(EFFECTS[action.action_type], action.input_parameters).state == "SUCCEEDED"
    with reader(cloud.engine) as conn:
        world = read_world(conn)
    assert [n.name for n in world.nodes if n.powered_off] == ["e2", "e3"]
    on = _actions(cloud, _audit(cloud, "saving_energy", {"min_free_hosts_num": 3}))
    assert [(a.input_parameters["resource_name"], a.input_parameters["state"]) for a in on] == [
        ("e2", "on"),
        ("e3", "on"),
    ]
    for action in on:
        assert cloud.run(EFFECTS[action.action_type], action.input_parameters).state == "SUCCEEDED"
    assert all(cloud.inventories(node)["VCPU"].reserved == 0 for node in empty)
