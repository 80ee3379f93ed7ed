"""node_resource_consolidation on hand-made snapshots: fewest nodes, disabled when freed
with ``host_choice=auto`` (only then: ``specify`` changes no service, as upstream)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from placement.actionplans.strategies import solve
from placement.actionplans.world import World
from tests.actionplans.strategies.worlds import (
    assert_fits_at_once,
    migrations,
    node,
    typed,
    worlds,
)

SPECIFY = {"host_choice": "specify"}
AUTO = {"host_choice": "auto"}


def _disabled(solution) -> list[str]:
    return [
        a.input_parameters["resource_name"]
        for a in solution.actions
        if a.action_type == "change_nova_service_state"
    ]


def test_packs_the_least_loaded_nodes_onto_the_fullest():
    world = World((node("n1", 8, 2), node("n2", 8, 2), node("n3", 8, 4)))
    solution = solve("node_resource_consolidation", SPECIFY, world)
    assert solution.planner == "node_resource_consolidation"
    assert _disabled(solution) == []  # specify: no service changes (watcher-tempest-plugin)
    assert _disabled(solve("node_resource_consolidation", AUTO, world)) == ["n1", "n2"]
    assert [(m["source_node"], m["destination_node"]) for m in migrations(solution)] == [
        ("n1", "n3"),
        ("n2", "n3"),
    ]
    assert_fits_at_once(world, solution)
    assert {i["name"]: i["value"] for i in solution.efficacy_indicators} == {
        "compute_nodes_count": 3,
        "released_compute_nodes_count": 2,
        "instance_migrations_count": 2,
    }
    assert solution.global_efficacy == [
        {
            "name": "released_nodes_ratio",
            "description": "Ratio of released compute nodes divided by the total number of "
            "enabled compute nodes.",
            "unit": "%",
            "value": pytest.approx(200 / 3),
        }
    ]


def test_auto_leaves_the_destination_to_the_applier():
    world = World((node("n1", 8, 2), node("n2", 8, 4)))
    solution = solve("node_resource_consolidation", {}, world)
    assert migrations(solution) == [
        {"migration_type": "live", "source_node": "n1", "resource_id": "n1-0"}
    ]
    assert _disabled(solution) == ["n1"]


def test_a_node_that_cannot_be_emptied_stays():
    world = World((node("n1", 8, 3), node("n2", 8, 6)))
    solution = solve("node_resource_consolidation", SPECIFY, world)
    assert solution.actions == []
    assert solution.efficacy_indicators[1]["value"] == 0


def test_a_node_holding_a_migration_is_not_released_but_its_usage_counts():
    """``n1`` is the least loaded, but what it holds is Nova's allocation for an
    in-flight migration: no plan empties it, so it is not released. ``n2``'s untyped
    server then goes to ``n3``, the fullest node with room; ``n4``, whose free room
    is what its migration leaves (1 VCPU), cannot take it."""
    world = World(
        (
            typed(node("n1", 8, 1), "MIGRATION"),
            typed(node("n2", 8, 2), None),
            typed(node("n3", 8, 4), "INSTANCE"),
            typed(node("n4", 8, 1, 6), "MIGRATION", "MIGRATION"),
        )
    )
    solution = solve("node_resource_consolidation", SPECIFY, world)
    assert _disabled(solve("node_resource_consolidation", AUTO, world)) == ["n2"]
    assert [(m["resource_id"], m["destination_node"]) for m in migrations(solution)] == [
        ("n2-0", "n3")
    ]
    assert_fits_at_once(world, solution)


def test_empty_nodes_are_disabled_without_counting_as_released():
    world = World((node("idle", 8), node("n2", 8, 6), node("off", 8, 1, disabled=True)))
    solution = solve("node_resource_consolidation", AUTO, world)
    assert _disabled(solution) == ["idle"]
    assert migrations(solution) == []
    assert solution.global_efficacy[0]["value"] == 0


def test_no_nodes():
    solution = solve("node_resource_consolidation", SPECIFY, World(()))
    assert solution.actions == []
    assert solution.global_efficacy[0]["value"] == 0


@settings(max_examples=200, deadline=None)
@given(worlds())
def test_plans_fit_at_once_and_never_land_on_a_released_node(world):
    solution = solve("node_resource_consolidation", SPECIFY, world)
    assert_fits_at_once(world, solution)
    released = set(_disabled(solve("node_resource_consolidation", AUTO, world)))
    assert not released & {m["destination_node"] for m in migrations(solution)}
    moved_from = {m["source_node"] for m in migrations(solution)}
    for name in moved_from:
        source = world.node(name)
        assert source is not None
        moved = {m["resource_id"] for m in migrations(solution) if m["source_node"] == name}
        assert moved == {c.uuid for c in source.consumers}
