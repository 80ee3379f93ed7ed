"""vm_workload_consolidation on hand-made snapshots and measurements: overloaded nodes
relieved, the measured load packed onto the busiest nodes with room, emptied nodes
disabled, disabled destinations enabled first, and nothing planned on a missing value."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings

from placement.actionplans.measured import Query
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.solution import Solution
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

NAME = "vm_workload_consolidation"
HOST_CPU, HOST_RAM = "host_cpu_usage", "host_ram_usage"
CPU, RAM = "instance_cpu_usage", "instance_ram_usage"


def _loads(world: World, hosts: dict[str, float], servers: dict[str, float]) -> dict:
    """Host CPU % per node (512 MB of host RAM each), server CPU % (50 unless given)
    and 256 MB of RAM per server."""
    loads: dict[tuple[str, str], float] = {}
    for each in world.nodes:
        loads[HOST_CPU, each.name] = hosts[each.name]
        loads[HOST_RAM, each.name] = 512 * 1024.0
        for consumer in each.consumers:
            loads[CPU, consumer.uuid] = servers.get(consumer.uuid, 50.0)
            loads[RAM, consumer.uuid] = 256.0
    return loads


def _plan(world: World, loads: dict) -> Solution:
    return solve(NAME, {}, measured(world, NAME, loads))


def _moves(solution: Solution) -> list[tuple[str, str, str]]:
    return [
        (m["resource_id"], m["source_node"], m["destination_node"]) for m in migrations(solution)
    ]


def _states(solution: Solution) -> list[tuple[str, str]]:
    return [
        (a.input_parameters["resource_name"], a.input_parameters["state"])
        for a in solution.actions
        if a.action_type == "change_nova_service_state"
    ]


def _indicators(solution: Solution) -> dict:
    return {i["name"]: i["value"] for i in solution.efficacy_indicators}


def _idle() -> World:
    """n1 (8 of 16 VCPU allocated), n2 (4 of 16), n3 (2 + 2 of 16)."""
    return World((node("n1", 16, 4, 4), node("n2", 16, 4), node("n3", 16, 2, 2)))


_IDLE_HOSTS = {"n1": 40.0, "n2": 20.0, "n3": 5.0}


def test_an_idle_cluster_is_consolidated_and_the_emptied_nodes_disabled():
    """CPU usage: n1 6.4 cores (host), n2 3.2 (host), n3 1.2 (its servers). From the
    least busy up, the busiest server first, onto n1, which has room for all."""
    world = measured(_idle(), NAME, _loads(_idle(), _IDLE_HOSTS, {"n3-0": 10.0}))
    solution = solve(NAME, {}, world)
    assert _moves(solution) == [
        ("n3-1", "n3", "n1"),
        ("n3-0", "n3", "n1"),
        ("n2-0", "n2", "n1"),
    ]
    assert {m["migration_type"] for m in migrations(solution)} == {"live"}
    assert [a.input_parameters for a in solution.actions[3:]] == [
        {
            "state": "disabled",
            "resource_name": name,
            "resource_id": f"uuid-{name}",
            "disabled_reason": "watcher_disabled",
        }
        for name in ("n2", "n3")
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


def test_an_overloaded_node_is_offloaded_least_busy_server_first():
    """x holds 5 VCPU on 3 (its allocation ratio lowered since), all busy: 5 cores > 3.
    Its smaller server goes to d (the busiest with room), x is still over, the bigger
    one fits only on e. Then d is the least busy node left with servers: its own and
    the one it just received go on to e, which has room for both. The server that
    went through d moves once, x to e."""
    world = World((node("x", 3, 1, 4), node("d", 8, 6), node("e", 16)))
    loads = _loads(world, {"x": 100.0, "d": 50.0, "e": 10.0}, {"x-0": 100.0, "x-1": 100.0})
    solution = _plan(world, loads)
    assert _moves(solution) == [("x-0", "x", "e"), ("x-1", "x", "e"), ("d-0", "d", "e")]
    assert _states(solution) == [("x", "disabled"), ("d", "disabled")]
    assert _indicators(solution)["instance_migrations_count"] == 3


def test_offloading_stops_once_the_node_is_no_longer_over():
    """x's least busy server (1 core) leaves for y; 2.5 cores are left on 3 VCPU: the
    other stays (and y has no allocation left for it when consolidating)."""
    world = World((node("x", 3, 1, 4), node("y", 10, 8)))
    loads = _loads(world, {"x": 100.0, "y": 50.0}, {"x-0": 100.0, "x-1": 62.5})
    solution = _plan(world, loads)
    assert _moves(solution) == [("x-0", "x", "y")]
    assert _states(solution) == []


def test_a_disabled_destination_is_enabled_first():
    """n1 is disabled but the busiest: it takes n2's and n3's servers, enabled before
    the first arrives; n2 and n3 are disabled, so one node is released in all."""
    world = World((node("n1", 16, 8, disabled=True), node("n2", 16, 2), node("n3", 16, 4)))
    solution = _plan(world, _loads(world, {"n1": 60.0, "n2": 5.0, "n3": 20.0}, {}))
    assert solution.actions[0].input_parameters == {
        "state": "enabled",
        "resource_name": "n1",
        "resource_id": "uuid-n1",
    }
    assert _moves(solution) == [("n2-0", "n2", "n1"), ("n3-0", "n3", "n1")]
    assert _states(solution) == [("n1", "enabled"), ("n2", "disabled"), ("n3", "disabled")]
    assert _indicators(solution)["released_compute_nodes_count"] == 1


def test_a_disabled_node_left_empty_is_not_disabled_again_nor_enabled():
    world = World((node("n1", 16, 8), node("n2", 16, disabled=True)))
    solution = _plan(world, _loads(world, {"n1": 50.0, "n2": 1.0}, {}))
    assert solution.actions == []
    assert _indicators(solution)["compute_nodes_count"] == 2


def test_a_full_cluster_gets_an_empty_plan():
    world = World((node("n1", 8, 4, 4), node("n2", 8, 8), node("n3", 8, 6, 2)))
    solution = _plan(world, _loads(world, {"n1": 50.0, "n2": 50.0, "n3": 50.0}, {}))
    assert solution.actions == []
    assert _indicators(solution) == {
        "compute_nodes_count": 3,
        "released_compute_nodes_count": 0,
        "instance_migrations_count": 0,
    }
    assert solution.global_efficacy[0]["value"] == 0


def test_the_measured_load_limits_what_a_node_takes():
    """n1 has allocation to spare, but its host RAM reading (3900 of its 4096 MB)
    leaves no room for n2's server (256 MB measured): nothing moves."""
    world = World((node("n1", 16, 4), node("n2", 16, 4)))
    loads = _loads(world, {"n1": 50.0, "n2": 10.0}, {})
    loads[HOST_RAM, "n1"] = 3900 * 1024.0
    assert _plan(world, loads).actions == []


def test_a_missing_reading_leaves_its_node_out_and_is_noted():
    """Upstream would read n3's RAM from its flavors; here n3 takes no part: n2 alone
    is emptied onto n1."""
    loads = _loads(_idle(), _IDLE_HOSTS, {"n3-0": 10.0})
    del loads[HOST_RAM, "n3"]
    solution = _plan(_idle(), loads)
    assert _moves(solution) == [("n2-0", "n2", "n1")]
    assert _states(solution) == [("n2", "disabled")]
    assert solution.notes == [
        "No value for host_ram_usage of node n3 (no series): left out of the plan.",
        "Node n3 takes no part: not all of its readings have a value.",
    ]
    assert _indicators(solution)["compute_nodes_count"] == 3


def test_a_server_without_a_value_keeps_its_whole_node_out():
    loads = _loads(_idle(), _IDLE_HOSTS, {})
    del loads[RAM, "n2-0"]
    solution = _plan(_idle(), loads)
    # equally busy servers go in reverse snapshot order, as upstream's reversed sort
    assert [move[0] for move in _moves(solution)] == ["n3-1", "n3-0"]
    assert solution.notes == [
        "No value for instance_ram_usage of server n2-0 (no series): left out of the plan.",
        "Node n2 takes no part: not all of its readings have a value.",
    ]


def test_nothing_measured_plans_nothing_and_says_why():
    solution = solve(NAME, {}, _idle())
    assert solution.actions == []
    assert len(solution.notes) == 3 * 2 + 5 * 2 + 3
    assert all("(not measured)" in note for note in solution.notes[:2])


def test_the_queries():
    """Host CPU and RAM per powered-on node, enabled or disabled; CPU and RAM per server
    (Nova's migration allocations are not servers), mean over ``period``."""
    world = World((typed(node("n1", 16, 4, 2), None, "MIGRATION"), node("n2", 8, disabled=True)))
    declared = STRATEGIES_BY_NAME[NAME]
    assert declared.measures is not None
    checked = apply_strategy_parameters(declared.parameters_spec, {"period": 600.0})
    assert checked == {"period": 600.0, "granularity": 300}
    assert declared.measures(checked, world) == (
        Query(HOST_CPU, "n1", 600),
        Query(HOST_RAM, "n1", 600),
        Query(CPU, "n1-0", 600, "mean", 4),
        Query(RAM, "n1-0", 600, "mean", 4),
        Query(HOST_CPU, "n2", 600),
        Query(HOST_RAM, "n2", 600),
    )


def test_a_node_holding_an_in_flight_migration_is_not_disabled():
    world = World((node("n1", 16, 8), typed(node("n2", 16, 2, 2), None, "MIGRATION")))
    solution = _plan(world, _loads(world, {"n1": 50.0, "n2": 5.0}, {}))
    assert _moves(solution) == [("n2-0", "n2", "n1")]
    assert _states(solution) == []


def _cpu_usage(world: World, name: str) -> float:
    """A node's CPU usage in cores as the strategy first ranks it."""
    each = world.node(name)
    assert each is not None
    host = world.measurements.value(Query(HOST_CPU, name, 3600)) or 0.0
    servers = sum(
        (world.measurements.value(Query(CPU, c.uuid, 3600, "mean", c.amounts["VCPU"])) or 0.0)
        * c.amounts["VCPU"]
        / 100
        for c in each.consumers
    )
    return max(servers, host * each.capacity["VCPU"] / 100)


def _unmeasured_nodes(world: World) -> set[str]:
    missing = {query.resource for query, _ in world.measurements.missing()}
    return {
        each.name
        for each in world.nodes
        if each.name in missing or {c.uuid for c in each.consumers} & missing
    }


@settings(max_examples=150, deadline=None)
@given(measured_worlds(NAME))
def test_plans_fit_at_once_move_each_server_once_and_only_measured_ones(world):
    solution = solve(NAME, {}, world)
    enabled = [name for name, state in _states(solution) if state == "enabled"]
    assert_fits_at_once(world, solution, enabled)
    unmeasured = _unmeasured_nodes(world)
    for _, source, destination in _moves(solution):
        assert source not in unmeasured and destination not in unmeasured
    assert all(f"Node {name} takes no part" in " ".join(solution.notes) for name in unmeasured)
    assert _indicators(solution)["released_compute_nodes_count"] >= 0


@settings(max_examples=150, deadline=None)
@given(measured_worlds(NAME))
def test_consolidation_moves_load_only_to_busier_nodes(world):
    """No node of a drawn world is overloaded (what it holds fits its capacity), so
    the whole plan is consolidation: every destination was at least as busy."""
    for each in world.nodes:
        assume(_cpu_usage(world, each.name) <= each.capacity["VCPU"])
    solution = solve(NAME, {}, world)
    for _, source, destination in _moves(solution):
        assert _cpu_usage(world, destination) >= _cpu_usage(world, source)


@settings(max_examples=100, deadline=None)
@given(measured_worlds(NAME))
def test_a_disabled_destination_is_enabled_before_anything_arrives(world):
    solution = solve(NAME, {}, world)
    enabled: set[str] = set()
    for action in solution.actions:
        params = action.input_parameters
        if action.action_type == "change_nova_service_state" and params["state"] == "enabled":
            enabled.add(params["resource_name"])
        elif action.action_type == "migrate":
            destination = world.node(params["destination_node"])
            assert destination is not None
            assert not destination.disabled or destination.name in enabled
    for name, state in _states(solution):
        each = world.node(name)
        assert each is not None and (state == "enabled") == each.disabled


def test_enabling_more_nodes_than_it_disables_releases_none():
    """x (5 cores on 4 VCPU) sends its least busy server to d, disabled and the only
    node with room: d is enabled and nothing is disabled. Upstream reports -1."""
    world = World((node("x", 4, 1, 4), node("d", 16, disabled=True)))
    loads = _loads(world, {"x": 100.0, "d": 1.0}, {"x-0": 100.0, "x-1": 100.0})
    solution = _plan(world, loads)
    assert _states(solution) == [("d", "enabled")]
    assert _moves(solution) == [("x-0", "x", "d")]
    assert _indicators(solution)["released_compute_nodes_count"] == 0
