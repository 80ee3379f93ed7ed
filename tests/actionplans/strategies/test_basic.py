"""basic on hand-made snapshots and measurements: the least busy nodes emptied onto the
busiest with room, emptied nodes disabled, and nothing planned on a missing value."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.measured import Query
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.strategies import STRATEGIES_BY_NAME, solve
from placement.actionplans.world import World
from tests.actionplans.strategies.worlds import (
    assert_fits_at_once,
    measured,
    measured_worlds,
    migrations,
    node,
    typed,
)

HOST, SERVER = "host_cpu_usage", "instance_cpu_usage"


def _cluster() -> World:
    """n1 busy (8 of 16 VCPU allocated), n2 (4 of 16), n3 idle (2 + 2 of 16)."""
    return World((node("n1", 16, 4, 4), node("n2", 16, 4), node("n3", 16, 2, 2)))


_LOADS = {
    (HOST, "n1"): 60.0,
    (HOST, "n2"): 30.0,
    (HOST, "n3"): 5.0,
    (SERVER, "n1-0"): 70.0,
    (SERVER, "n1-1"): 50.0,
    (SERVER, "n2-0"): 30.0,
    (SERVER, "n3-0"): 10.0,
    (SERVER, "n3-1"): 50.0,
}


def _indicators(solution) -> dict:
    return {i["name"]: i["value"] for i in solution.efficacy_indicators}


def _disabled(solution) -> list[str]:
    return [
        a.input_parameters["resource_name"]
        for a in solution.actions
        if a.action_type == "change_nova_service_state"
    ]


def test_an_idle_cluster_is_consolidated_and_the_emptied_nodes_disabled():
    """n3 (least busy) goes first, its busiest server first, onto n1 (the busiest with
    room); then n2 onto n1, which is full then. n1 received servers: it is not emptied."""
    world = measured(_cluster(), "basic", _LOADS)
    solution = solve("basic", {}, world)
    assert [
        (m["resource_id"], m["source_node"], m["destination_node"]) for m in migrations(solution)
    ] == [
        ("n3-1", "n3", "n1"),
        ("n3-0", "n3", "n1"),
        ("n2-0", "n2", "n1"),
    ]
    assert {m["migration_type"] for m in migrations(solution)} == {"live"}
    disabling = [a.input_parameters for a in solution.actions if a.action_type != "migrate"]
    assert disabling == [
        {
            "state": "disabled",
            "resource_name": "n3",
            "resource_id": "uuid-n3",
            "disabled_reason": "watcher_disabled",
        },
        {
            "state": "disabled",
            "resource_name": "n2",
            "resource_id": "uuid-n2",
            "disabled_reason": "watcher_disabled",
        },
    ]
    assert _indicators(solution) == {
        "compute_nodes_count": 3,
        "released_compute_nodes_count": 2,
        "instance_migrations_count": 3,
    }
    assert solution.global_efficacy[0]["name"] == "released_nodes_ratio"
    assert solution.global_efficacy[0]["value"] == pytest.approx(200 / 3)
    assert solution.notes == []
    assert solution.planner == "weight"
    assert_fits_at_once(world, solution)


def test_the_busiest_node_with_room_is_the_destination():
    """n1 is the busiest but full: n3's server goes to n2."""
    world = World((node("n1", 8, 4, 4), node("n2", 16, 4), node("n3", 16, 2)))
    loads = {(HOST, "n1"): 90.0, (HOST, "n2"): 40.0, (HOST, "n3"): 1.0, (SERVER, "n3-0"): 5.0}
    loads.update({(SERVER, c): 50.0 for c in ("n1-0", "n1-1", "n2-0")})
    solution = solve("basic", {}, measured(world, "basic", loads))
    assert [(m["resource_id"], m["destination_node"]) for m in migrations(solution)] == [
        ("n3-0", "n2")
    ]
    assert _disabled(solution) == ["n3"]


def test_a_full_cluster_gets_an_empty_plan():
    world = World((node("n1", 8, 4, 4), node("n2", 8, 8), node("n3", 8, 6, 2)))
    loads = {(HOST, n.name): 50.0 for n in world.nodes}
    loads.update({(SERVER, c.uuid): 50.0 for n in world.nodes for c in n.consumers})
    solution = solve("basic", {}, measured(world, "basic", loads))
    assert solution.actions == []
    assert _indicators(solution)["released_compute_nodes_count"] == 0
    assert solution.global_efficacy[0]["value"] == 0


def test_a_node_without_a_cpu_value_is_left_out_and_noted():
    """Upstream counts n3 100 % busy (so the first destination); here it takes no part."""
    loads = dict(_LOADS)
    del loads[HOST, "n3"]
    world = measured(_cluster(), "basic", loads)
    solution = solve("basic", {}, world)
    assert [(m["resource_id"], m["destination_node"]) for m in migrations(solution)] == [
        ("n2-0", "n1")
    ]
    assert _disabled(solution) == ["n2"]
    assert solution.notes == [
        "No value for host_cpu_usage of node n3 (no series): left out of the plan."
    ]


def test_a_server_without_a_cpu_value_stays_and_its_node_is_not_released():
    loads = dict(_LOADS)
    del loads[SERVER, "n3-0"]
    solution = solve("basic", {}, measured(_cluster(), "basic", loads))
    assert [m["resource_id"] for m in migrations(solution)] == ["n3-1", "n2-0"]
    assert _disabled(solution) == ["n2"]
    assert solution.notes == [
        "No value for instance_cpu_usage of server n3-0 (no series): left out of the plan."
    ]
    assert _indicators(solution)["released_compute_nodes_count"] == 1


def test_nothing_measured_plans_nothing_and_says_why():
    solution = solve("basic", {}, _cluster())
    assert solution.actions == []
    assert len(solution.notes) == 3
    assert all("(not measured)" in note for note in solution.notes)


def test_migration_attempts_stops_after_that_many_fruitless_nodes():
    """Four nodes; the two least busy cannot be emptied (no busier node has room for 9
    VCPU): with one attempt the search stops before n2, whose server fits on n1."""
    world = World((node("n1", 10, 8), node("n2", 10, 2), node("n3", 10, 9), node("n4", 10, 9)))
    loads = {(HOST, "n1"): 90.0, (HOST, "n2"): 50.0, (HOST, "n3"): 20.0, (HOST, "n4"): 10.0}
    loads.update({(SERVER, f"{n}-0"): 50.0 for n in ("n1", "n2", "n3", "n4")})
    world = measured(world, "basic", loads)
    assert [m["resource_id"] for m in migrations(solve("basic", {}, world))] == ["n2-0"]
    limited = solve("basic", {"migration_attempts": 1}, world)
    assert limited.actions == []


def test_disabled_and_powered_off_nodes_take_no_part():
    """Only n1 is enabled and powered on: nothing can move anywhere."""
    off = dataclasses.replace(node("n4", 16, 2), powered_off=True)
    world = World(
        (node("n1", 16, 4), node("n2", 16, disabled=True), node("n3", 16, 2, disabled=True), off)
    )
    declared = STRATEGIES_BY_NAME["basic"]
    assert declared.measures is not None
    checked = apply_strategy_parameters(declared.parameters_spec, {})
    assert {q.resource for q in declared.measures(checked, world)} == {"n1", "n1-0"}
    loads = {(HOST, "n1"): 50.0, (SERVER, "n1-0"): 50.0}
    solution = solve("basic", {}, measured(world, "basic", loads))
    assert solution.actions == []
    assert _indicators(solution)["compute_nodes_count"] == 1


def test_the_queries_follow_the_parameters():
    """Host and server CPU per node taking part, with the period and the aggregates
    asked (``node``, deprecated, stands for ``compute_node``); a server's vCPUs go along;
    only servers are measured (Nova's migration allocations are not)."""
    world = World((typed(node("n1", 16, 4, 2), None, "MIGRATION"),))
    declared = STRATEGIES_BY_NAME["basic"]
    assert declared.measures is not None
    parameters = {
        "migration_attempts": 0,
        "period": 600.0,
        "granularity": 300,
        "aggregation_method": {"instance": "max", "compute_node": "mean", "node": "min"},
    }
    assert declared.measures(parameters, world) == (
        Query(HOST, "n1", 600, "min"),
        Query(SERVER, "n1-0", 600, "max", 4),
    )


def test_an_unknown_aggregate_is_refused():
    with pytest.raises(InvalidAuditParameters, match="aggregate 'median'"):
        solve("basic", {"aggregation_method": {"instance": "median"}}, _cluster())


@settings(max_examples=150, deadline=None)
@given(measured_worlds("basic"))
def test_plans_fit_at_once_move_each_server_once_and_note_the_gaps(world):
    solution = solve("basic", {}, world)
    assert_fits_at_once(world, solution)
    missing = {query.resource for query, _ in world.measurements.missing()}
    moved = {m["resource_id"] for m in migrations(solution)}
    sources = {m["source_node"] for m in migrations(solution)}
    assert not moved & missing and not sources & missing
    gaps = world.measurements.missing()
    assert len(solution.notes) <= len(gaps)
    assert sum(1 for query, _ in gaps if query.metric == HOST) <= len(solution.notes)
    for name in _disabled(solution):
        source = world.node(name)
        assert source is not None and not source.disabled
        assert {c.uuid for c in source.consumers} <= moved
