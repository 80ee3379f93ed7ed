"""Hand-written capacity snapshots, a hypothesis strategy of random ones, and the check
that a plan's migrations fit all at once."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Collection, Mapping
from typing import Any

from hypothesis import strategies as st

from placement.actionplans.measured import Measurements, Reading
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import STRATEGIES_BY_NAME
from placement.actionplans.world import Consumer, Node, World


def node(
    name: str, capacity: int, *held: int, disabled: bool = False, memory: int | None = None
) -> Node:
    """A node ``name`` with ``capacity`` VCPU (and memory) holding consumers of ``held`` VCPU
    each (and 256 MB per VCPU); consumers are named ``<name>-<i>``."""
    consumers = tuple(
        Consumer(f"{name}-{i}", {"VCPU": vcpu, "MEMORY_MB": 256 * vcpu})
        for i, vcpu in enumerate(held)
    )
    return Node(
        uuid=f"uuid-{name}",
        name=name,
        capacity={"VCPU": capacity, "MEMORY_MB": memory if memory is not None else 256 * capacity},
        usage={"VCPU": sum(held), "MEMORY_MB": 256 * sum(held)},
        disabled=disabled,
        consumers=consumers,
        totals={"VCPU": capacity, "MEMORY_MB": memory if memory is not None else 256 * capacity},
    )


def typed(of: Node, *types: str | None) -> Node:
    """``of`` with its consumers given these consumer types, in order."""
    consumers = tuple(
        dataclasses.replace(consumer, consumer_type=kind)
        for consumer, kind in zip(of.consumers, types, strict=True)
    )
    return dataclasses.replace(of, consumers=consumers)


def measured(
    world: World,
    strategy: str,
    values: Mapping[tuple[str, str], float | None],
    parameters: Mapping[str, Any] | None = None,
) -> World:
    """``world`` with the queries ``strategy`` declares for ``parameters`` answered from
    ``values`` (metric, node name or consumer uuid → value); a query ``values`` does not
    answer, or answers None, gets no value, as a missing series would."""
    declared = STRATEGIES_BY_NAME[strategy]
    assert declared.measures is not None
    checked = apply_strategy_parameters(declared.parameters_spec, parameters or {})
    readings = {}
    for query in declared.measures(checked, world):
        value = values.get((query.metric, query.resource))
        readings[query] = Reading(value, None if value is not None else "no series")
    return dataclasses.replace(world, measurements=Measurements(readings, "test"))


def migrations(solution: Solution) -> list[dict]:
    return [a.input_parameters for a in solution.actions if a.action_type == "migrate"]


def assert_fits_at_once(world: World, solution: Solution, enabled: Collection[str] = ()) -> None:
    """Moving every migrated consumer at the same time overcommits no destination,
    each consumer moves once, and only to another node enabled, or in ``enabled``
    (the names of the nodes the plan enables)."""
    amounts = {c.uuid: (n, c.amounts) for n in world.nodes for c in n.consumers}
    arriving: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    moved = [m["resource_id"] for m in migrations(solution)]
    assert len(moved) == len(set(moved))
    for move in migrations(solution):
        source, held = amounts[move["resource_id"]]
        destination = world.node(move["destination_node"])
        assert destination is not None
        assert not destination.disabled or destination.name in enabled
        assert destination.uuid != source.uuid and source.name == move["source_node"]
        for rc, amount in held.items():
            arriving[destination.name][rc] += amount
    for name, incoming in arriving.items():
        destination = world.node(name)
        assert destination is not None
        free = destination.free()
        assert all(amount <= free.get(rc, 0) for rc, amount in incoming.items()), name


@st.composite
def worlds(draw: st.DrawFn) -> World:
    """Two to seven nodes of 4 to 32 VCPU, some disabled, each holding what fits."""
    nodes = []
    for index in range(draw(st.integers(2, 7))):
        capacity = draw(st.integers(4, 32))
        held: list[int] = []
        while draw(st.booleans()) and sum(held) < capacity:
            held.append(draw(st.integers(1, capacity - sum(held))))
        nodes.append(node(f"n{index}", capacity, *held, disabled=draw(st.booleans())))
    return World(tuple(nodes))


#: The values hypothesis draws for each metric, in its unit (host RAM in KiB).
_RANGES = {
    "host_cpu_usage": (0.0, 100.0),
    "instance_cpu_usage": (0.0, 100.0),
    "host_ram_usage": (0.0, 8.0 * 1024 * 1024),
    "instance_ram_usage": (0.0, 8192.0),
}


@st.composite
def measured_worlds(
    draw: st.DrawFn, strategy: str, parameters: Mapping[str, Any] | None = None
) -> World:
    """A random world whose every query for ``strategy`` gets a value, or none."""
    world = draw(worlds())
    declared = STRATEGIES_BY_NAME[strategy]
    assert declared.measures is not None
    checked = apply_strategy_parameters(declared.parameters_spec, parameters or {})
    values: dict[tuple[str, str], float | None] = {}
    for query in declared.measures(checked, world):
        low, high = _RANGES[query.metric]
        values[query.metric, query.resource] = draw(
            st.one_of(st.none(), st.floats(low, high, allow_nan=False))
        )
    return measured(world, strategy, values, parameters)
