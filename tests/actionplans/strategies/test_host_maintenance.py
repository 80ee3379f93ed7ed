"""host_maintenance on hand-made snapshots: disable first, then every consumer moves,
to the backup when it has room, else to destinations that all fit at once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from placement.actionplans.errors import ConsumersCannotBePlaced, NodeNotFound
from placement.actionplans.strategies import solve
from placement.actionplans.world import World
from tests.actionplans.strategies.worlds import (
    assert_fits_at_once,
    migrations,
    node,
    typed,
    worlds,
)


def _disable(name: str) -> dict:
    return {
        "state": "disabled",
        "disabled_reason": "watcher_maintaining",
        "resource_name": name,
        "resource_id": f"uuid-{name}",
    }


def test_disables_then_moves_each_consumer_with_its_destination():
    world = World((node("m", 16, 4, 2), node("a", 16), node("b", 16, 8)))
    solution = solve("host_maintenance", {"maintenance_node": "m"}, world)
    assert solution.planner == "weight"
    first = solution.actions[0]
    assert (first.action_type, first.input_parameters) == (
        "change_nova_service_state",
        _disable("m"),
    )
    moves = migrations(solution)
    assert [m["resource_id"] for m in moves] == ["m-0", "m-1"]
    assert {m["migration_type"] for m in moves} == {"live"}
    assert {m["destination_node"] for m in moves} <= {"a", "b"}
    assert_fits_at_once(world, solution)


def test_the_whole_plan_fits_at_once():
    """Each destination alone could take the biggest consumer, but not all of them: a
    strategy that looked at free capacity per consumer would overcommit ``a``."""
    world = World((node("m", 16, 3, 3, 2, 1), node("a", 5), node("b", 4)))
    solution = solve("host_maintenance", {"maintenance_node": "m"}, world)
    assert len(migrations(solution)) == 4
    assert_fits_at_once(world, solution)


def test_what_fits_nowhere_fails_the_audit_naming_the_consumers():
    world = World(
        (node("m", 16, 4, 4, 4), node("a", 5), node("b", 5), node("off", 64, disabled=True))
    )
    with pytest.raises(ConsumersCannotBePlaced) as caught:
        solve("host_maintenance", {"maintenance_node": "m"}, world)
    assert str(caught.value) == "No enabled node has room for the consumers of m: m-2"
    assert caught.value.consumers == ("m-2",)


def test_a_backup_with_room_takes_everything():
    world = World((node("m", 16, 4, 2), node("a", 64), node("spare", 6)))
    solution = solve("host_maintenance", {"maintenance_node": "m", "backup_node": "spare"}, world)
    assert {m["destination_node"] for m in migrations(solution)} == {"spare"}


def test_a_disabled_backup_is_enabled_first():
    world = World((node("m", 16, 4), node("spare", 8, disabled=True)))
    solution = solve("host_maintenance", {"maintenance_node": "m", "backup_node": "spare"}, world)
    assert [(a.action_type, a.input_parameters.get("state")) for a in solution.actions] == [
        ("change_nova_service_state", "enabled"),
        ("change_nova_service_state", "disabled"),
        ("migrate", None),
    ]
    assert migrations(solution)[0]["destination_node"] == "spare"


def test_a_backup_without_room_is_ignored():
    world = World((node("m", 16, 4, 2), node("a", 64), node("spare", 5)))
    solution = solve("host_maintenance", {"maintenance_node": "m", "backup_node": "spare"}, world)
    assert {m["destination_node"] for m in migrations(solution)} <= {"a", "spare"}
    assert_fits_at_once(world, solution)


def test_an_empty_node_is_only_disabled():
    world = World((node("m", 16), node("a", 16)))
    solution = solve("host_maintenance", {"maintenance_node": "uuid-m"}, world)
    assert [a.input_parameters for a in solution.actions] == [_disable("m")]


def test_migration_flags():
    world = World((node("m", 16, 4), node("a", 16)))
    cold = solve(
        "host_maintenance", {"maintenance_node": "m", "disable_live_migration": True}, world
    )
    assert migrations(cold)[0]["migration_type"] == "cold"
    both = {"maintenance_node": "m", "disable_live_migration": True, "disable_cold_migration": True}
    stopped = solve("host_maintenance", both, world)
    assert [(a.action_type, a.input_parameters) for a in stopped.actions[1:]] == [
        ("stop", {"resource_id": "m-0"})
    ]


def test_only_servers_move_and_what_nova_holds_for_a_migration_still_counts():
    """An INSTANCE and an untyped consumer move; Nova's MIGRATION allocations stay put,
    and the destination's own MIGRATION usage still takes room: ``a`` (8 VCPU, 5 used
    by a migration) cannot take the 4 VCPU server, ``b`` can."""
    world = World(
        (
            typed(node("m", 16, 4, 3, 2), "INSTANCE", "MIGRATION", None),
            typed(node("a", 8, 5), "MIGRATION"),
            node("b", 6),
        )
    )
    solution = solve("host_maintenance", {"maintenance_node": "m"}, world)
    assert solution.actions[0].input_parameters == _disable("m")
    moves = migrations(solution)
    assert [m["resource_id"] for m in moves] == ["m-0", "m-2"]
    assert dict((m["resource_id"], m["destination_node"]) for m in moves)["m-0"] == "b"
    assert_fits_at_once(world, solution)
    both = {"maintenance_node": "m", "disable_live_migration": True, "disable_cold_migration": True}
    stopped = solve("host_maintenance", both, world)
    assert [a.input_parameters for a in stopped.actions[1:]] == [
        {"resource_id": "m-0"},
        {"resource_id": "m-2"},
    ]


@pytest.mark.parametrize("parameter", ["maintenance_node", "backup_node"])
def test_unknown_nodes(parameter):
    world = World((node("m", 16, 4), node("a", 16)))
    parameters = {"maintenance_node": "m", parameter: "ghost"}
    with pytest.raises(NodeNotFound, match="^The compute node ghost could not be found$"):
        solve("host_maintenance", parameters, world)


@settings(max_examples=200, deadline=None)
@given(worlds())
def test_any_plan_it_makes_fits_at_once(world):
    maintenance = world.nodes[0]
    try:
        solution = solve("host_maintenance", {"maintenance_node": maintenance.name}, world)
    except ConsumersCannotBePlaced as refused:
        assert refused.consumers
        return
    assert sorted(m["resource_id"] for m in migrations(solution)) == sorted(
        c.uuid for c in maintenance.consumers
    )
    assert_fits_at_once(world, solution)
