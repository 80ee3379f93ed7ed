"""zone_migration (compute part) on hand-made snapshots: several nodes drained at once,
destinations that fit together, upstream's priorities, and the parallel limits as the
plan's parents."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from placement.actionplans.errors import (
    ConsumersCannotBePlaced,
    InvalidAuditParameters,
    NodeNotFound,
)
from placement.actionplans.planners import PlannerOptions, make_plan
from placement.actionplans.strategies import solve
from placement.actionplans.world import Node, World
from tests.actionplans.builders import parents
from tests.actionplans.strategies.worlds import (
    assert_fits_at_once,
    migrations,
    node,
    typed,
    worlds,
)


def _drain(*pairs: tuple[str, str | None], **extra) -> dict:
    nodes = [{"src_node": src} | ({"dst_node": dst} if dst else {}) for src, dst in pairs]
    return {"compute_nodes": nodes, **extra}


def _with(of: Node, **facts: list) -> Node:
    """``of`` with its consumers given these facts (``project=[...]``), in order."""
    consumers = tuple(
        dataclasses.replace(consumer, **{name: values[i] for name, values in facts.items()})
        for i, consumer in enumerate(of.consumers)
    )
    return dataclasses.replace(of, consumers=consumers)


def _moved(solution) -> list[str]:
    return [m["resource_id"] for m in migrations(solution)]


def test_drains_every_source_to_its_destination_or_any_with_room():
    world = World((node("w1", 16, 4, 2), node("w2", 16, 3), node("new1", 8), node("new2", 8, 4)))
    solution = solve("zone_migration", _drain(("w1", "new1"), ("w2", None)), world)
    moves = migrations(solution)
    assert [(m["resource_id"], m["source_node"], m["destination_node"]) for m in moves] == [
        ("w1-0", "w1", "new1"),
        ("w1-1", "w1", "new1"),
        ("w2-0", "w2", "new2"),
    ]
    assert {m["migration_type"] for m in moves} == {"live"}
    assert_fits_at_once(world, solution)
    counts = {i["name"]: i["value"] for i in solution.efficacy_indicators}
    assert counts["planned_live_migrate_instance_count"] == 3
    assert counts["planned_volume_migrate_count"] == 0
    assert solution.global_efficacy[0]["name"] == "live_instance_migrate_ratio"


def test_parallel_limits_are_the_plans_parents():
    """Four servers on w1 and two on w2, at most three at once and two per node."""
    world = World((node("w1", 32, 1, 1, 1, 1), node("w2", 32, 1, 1), node("new", 64)))
    parameters = _drain(("w1", "new"), ("w2", "new"), parallel_total=3, parallel_per_node=2)
    solution = solve("zone_migration", parameters, world)
    assert _moved(solution) == ["w1-0", "w1-1", "w1-2", "w1-3", "w2-0", "w2-1"]
    plan = make_plan(solution.planner, solution.actions, PlannerOptions())
    assert parents(plan) == {0: [], 1: [], 2: [0], 3: [0, 1], 4: [1], 5: [2]}
    defaults = solve("zone_migration", _drain(("w1", "new"), ("w2", "new")), world)
    assert parents(make_plan(defaults.planner, defaults.actions, PlannerOptions())) == {
        0: [],
        1: [],
        2: [0],
        3: [1],
        4: [],
        5: [],
    }


def test_priorities_order_the_migrations():
    """Projects listed first in their order, then the listed nodes, then the biggest."""
    w1 = _with(node("w1", 32, 1, 4, 2), project=["p1", "p2", "p3"])
    w2 = _with(node("w2", 32, 8, 1), project=["p3", "p2"])
    world = World((w1, w2, node("new", 64)))
    drain = _drain(("w1", "new"), ("w2", "new"))
    assert _moved(solve("zone_migration", drain, world)) == ["w1-0", "w1-1", "w1-2", "w2-0", "w2-1"]
    by_size = {**drain, "priority": {"compute": "vcpu_num"}}
    assert _moved(solve("zone_migration", by_size, world)) == [
        "w2-0",
        "w1-1",
        "w1-2",
        "w1-0",
        "w2-1",
    ]
    by_node = {**drain, "priority": {"compute_node": ["w2"], "compute": "vcpu_num"}}
    assert _moved(solve("zone_migration", by_node, world)) == [
        "w2-0",
        "w2-1",
        "w1-1",
        "w1-2",
        "w1-0",
    ]
    by_project = {**drain, "priority": {"project": ["p2", "p3"], "compute": "mem_size"}}
    assert _moved(solve("zone_migration", by_project, world)) == [
        "w1-1",
        "w2-1",
        "w2-0",
        "w1-2",
        "w1-0",
    ]


def test_oldest_first():
    old, new = datetime(2024, 1, 1), datetime(2025, 1, 1)
    w1 = _with(node("w1", 32, 1, 1, 1), created_at=[new, None, old])
    world = World((w1, node("new", 8)))
    parameters = _drain(("w1", None), priority={"compute": "created_at"})
    assert _moved(solve("zone_migration", parameters, world)) == ["w1-2", "w1-0", "w1-1"]


def test_only_servers_move():
    world = World((typed(node("w1", 16, 4, 2), "MIGRATION", None), node("new", 16)))
    assert _moved(solve("zone_migration", _drain(("w1", "new")), world)) == ["w1-1"]


@pytest.mark.parametrize(
    "destination,missing",
    [("full", ("w1-1",)), ("off", ("w1-0", "w1-1")), ("w2", ("w1-0", "w1-1"))],
)
def test_a_named_destination_without_room_fails_the_audit(destination, missing):
    """``full`` has room for one server, ``off`` is disabled, ``w2`` is drained too."""
    world = World(
        (
            node("w1", 16, 4, 2),
            node("full", 5, 1),
            node("off", 64, disabled=True),
            node("w2", 64),
            node("spare", 64),
        )
    )
    with pytest.raises(ConsumersCannotBePlaced) as caught:
        solve("zone_migration", _drain(("w1", destination), ("w2", "spare")), world)
    assert caught.value.consumers == missing
    assert str(caught.value).startswith("No enabled node has room for the consumers of w1, w2:")


def test_unknown_nodes_and_storage_pools_are_refused():
    world = World((node("w1", 16, 4), node("new", 16)))
    with pytest.raises(NodeNotFound, match="^The compute node ghost could not be found$"):
        solve("zone_migration", _drain(("w1", "ghost")), world)
    pools = {"storage_pools": [{"src_pool": "a@b#c", "dst_pool": "d@e#f"}]}
    with pytest.raises(InvalidAuditParameters, match="storage_pools is not supported"):
        solve("zone_migration", _drain(("w1", "new"), **pools), world)
    with pytest.raises(InvalidAuditParameters, match="is not valid under any of the given"):
        solve("zone_migration", {"storage_pools": [{"src_pool": "a@b#c"}]}, world)
    with pytest.raises(InvalidAuditParameters, match="'src_node' is a required property"):
        solve("zone_migration", {"compute_nodes": [{"dst_node": "new"}]}, world)


def test_nothing_to_drain_is_an_empty_plan_with_upstreams_defaults():
    solution = solve("zone_migration", {}, World((node("w1", 16, 4),)))
    assert solution.actions == []
    assert solution.parameters == {
        "parallel_total": 6,
        "parallel_per_node": 2,
        "parallel_per_pool": 2,
        "with_attached_volume": False,
    }


@settings(max_examples=60, deadline=None)
@given(worlds(), st.integers(1, 3), st.integers(0, 4), st.integers(0, 3))
def test_any_plan_drains_the_sources_fits_at_once_and_keeps_the_limits(
    world, sources, total, per_node
):
    drained = world.nodes[:sources]
    parameters = _drain(
        *((n.name, None) for n in drained), parallel_total=total, parallel_per_node=per_node
    )
    try:
        solution = solve("zone_migration", parameters, world)
    except ConsumersCannotBePlaced as refused:
        assert refused.consumers
        return
    assert sorted(_moved(solution)) == sorted(c.uuid for n in drained for c in n.consumers)
    assert_fits_at_once(world, solution)
    assert not {m["destination_node"] for m in migrations(solution)} & {n.name for n in drained}
    plan = make_plan(solution.planner, solution.actions, PlannerOptions())
    assert all(len(p) <= 2 for p in plan.parents_by_index().values())
