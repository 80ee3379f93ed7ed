"""workload_stabilization on measured load (a datasource answered): host readings
normalised as upstream, servers carrying their measured load, the unmeasured left out
and noted; and without a datasource, the allocated share, said in the notes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.strategies import solve
from placement.actionplans.strategies.workload_stabilization import BY_ALLOCATION
from placement.actionplans.world import World
from tests.actionplans.strategies.worlds import (
    assert_fits_at_once,
    measured,
    measured_worlds,
    migrations,
    node,
)

NAME = "workload_stabilization"


def _moves(solution) -> list[tuple[str, str, str]]:
    return [
        (m["resource_id"], m["source_node"], m["destination_node"]) for m in migrations(solution)
    ]


def _indicators(solution) -> dict:
    return {i["name"]: i["value"] for i in solution.efficacy_indicators}


def _three() -> World:
    """Three 8-VCPU nodes, allocations even (2 VCPU each): a share balancer sees no spread."""
    return World((node("a", 8, 2, 2), node("b", 8, 2, 2), node("c", 8, 2, 2)))


def test_a_busy_node_is_relieved_though_allocations_are_even():
    world = _three()
    values = {
        ("host_cpu_usage", "a"): 90.0,
        ("host_cpu_usage", "b"): 10.0,
        ("host_cpu_usage", "c"): 20.0,
        # a-0 burns both its vCPUs (2 cores = 25 % of a), a-1 one of its two.
        ("instance_cpu_usage", "a-0"): 100.0,
        ("instance_cpu_usage", "a-1"): 50.0,
        ("instance_cpu_usage", "b-0"): 10.0,
        ("instance_cpu_usage", "b-1"): 10.0,
        ("instance_cpu_usage", "c-0"): 40.0,
        ("instance_cpu_usage", "c-1"): 40.0,
    }
    solution = solve(NAME, {}, measured(world, NAME, values))
    # Shares .9/.1/.2; a-0 to b gives .65/.35/.2 (sd ~.19), the best first move; then
    # a-1 (1 core) to c gives .525/.35/.325 (sd ~.089), within 0.1.
    assert _moves(solution) == [("a-0", "a", "b"), ("a-1", "a", "c")]
    assert solution.notes == []
    indicators = _indicators(solution)
    assert indicators["standard_deviation_before_audit"] == pytest.approx(0.355903, abs=1e-5)
    assert indicators["standard_deviation_after_audit"] == pytest.approx(0.088976, abs=1e-5)
    assert_fits_at_once(world, solution)


def test_the_same_world_unmeasured_is_balanced_by_allocation_and_says_so():
    solution = solve(NAME, {}, _three())
    assert _moves(solution) == []
    assert solution.notes == [BY_ALLOCATION]


def test_host_ram_is_read_in_kib_and_normalised_by_memory_capacity():
    world = World((node("a", 8, 2, 2), node("b", 8, 2)))  # 2048 MB of memory each
    mib = 1024.0
    values = {
        ("host_ram_usage", "a"): 1800 * mib,
        ("host_ram_usage", "b"): 200 * mib,
        ("instance_ram_usage", "a-0"): 900.0,
        ("instance_ram_usage", "a-1"): 600.0,
        ("instance_ram_usage", "b-0"): 100.0,
    }
    parameters = {"metrics": ["instance_ram_usage"]}
    solution = solve(NAME, parameters, measured(world, NAME, values, parameters))
    # Shares .879/.098 of 2048 MB; a-0 moving gives .439/.537 (sd .049, within 0.1),
    # better than a-1's .586/.391.
    assert _moves(solution) == [("a-0", "a", "b")]


def test_unmeasured_nodes_and_servers_are_left_out_and_noted():
    world = World((node("a", 8, 2, 2), node("b", 8), node("dark", 8)))
    values = {
        ("host_cpu_usage", "a"): 90.0,
        ("host_cpu_usage", "b"): 0.0,
        ("instance_cpu_usage", "a-1"): 100.0,
    }
    solution = solve(NAME, {}, measured(world, NAME, values))
    assert _moves(solution) == [("a-1", "a", "b")]
    assert solution.notes == [
        "No value for instance_cpu_usage of server a-0 (no series): left out of the plan.",
        "No value for host_cpu_usage of node dark (no series): left out of the plan.",
    ]


def test_a_destination_without_room_by_allocation_takes_nothing():
    world = World((node("a", 8, 4, 4), node("full", 8, 8), node("roomy", 8)))
    values = {
        ("host_cpu_usage", "a"): 100.0,
        ("host_cpu_usage", "full"): 0.0,
        ("host_cpu_usage", "roomy"): 20.0,
        ("instance_cpu_usage", "a-0"): 100.0,
        ("instance_cpu_usage", "a-1"): 100.0,
        ("instance_cpu_usage", "full-0"): 0.0,
    }
    solution = solve(NAME, {}, measured(world, NAME, values))
    # a-0 (4 cores) on the idle "full" would even out best, but it holds all its VCPU.
    assert [move[2] for move in _moves(solution)] == ["roomy"]
    assert_fits_at_once(world, solution)


def test_periods_and_aggregates_are_asked_as_upstream_names_them():
    world = World((node("a", 8, 2),))
    parameters = {
        "periods": {"instance": 300, "compute_node": 600, "node": 900},
        "aggregation_method": {"instance": "max", "compute_node": "mean", "node": "min"},
    }
    declared = measured(world, NAME, {}, parameters).measurements.readings
    asked = {(q.metric, q.resource, q.period, q.aggregate) for q in declared}
    assert asked == {
        ("host_cpu_usage", "a", 900, "min"),
        ("instance_cpu_usage", "a-0", 300, "max"),
    }


@pytest.mark.parametrize(
    "parameters, message",
    [
        ({"instance_metrics": {"instance_cpu_usage": "host_ram_usage"}}, "must map"),
        ({"aggregation_method": {"instance": "median", "compute_node": "mean"}}, "median"),
    ],
)
def test_bad_readings_parameters_are_refused(parameters, message):
    with pytest.raises(InvalidAuditParameters, match=message):
        solve(NAME, parameters, _three())


def _cpu_spread(world: World, solution) -> tuple[float, float]:
    """The measured CPU deviation before and after, recomputed here (measured nodes)."""
    m = world.measurements
    share, cores = {}, {}
    for q, reading in m.readings.items():
        if reading.value is None:
            continue
        if q.metric == "host_cpu_usage":
            share[q.resource] = reading.value / 100
        else:
            cores[q.resource] = reading.value * q.vcpus / 100
    before = _deviation(list(share.values()))
    for uuid, source, destination in _moves(solution):
        capacity = {n.name: n.capacity["VCPU"] for n in world.nodes}
        share[source] -= cores[uuid] / capacity[source]
        share[destination] += cores[uuid] / capacity[destination]
    return before, _deviation(list(share.values()))


def _deviation(values: list[float]) -> float:
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5


@settings(max_examples=150, deadline=None)
@given(measured_worlds(NAME))
def test_measured_plans_fit_move_each_server_once_and_never_widen_the_spread(world):
    solution = solve(NAME, {}, world)
    assert_fits_at_once(world, solution)
    before, after = _cpu_spread(world, solution)
    assert after <= before + 1e-9
