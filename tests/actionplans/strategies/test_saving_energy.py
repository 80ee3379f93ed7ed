"""saving_energy on hand-made snapshots: exactly the surplus empty nodes powered off,
off nodes powered on when too few empty ones are left on."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from placement.actionplans.strategies import solve
from placement.actionplans.world import Node, World
from tests.actionplans.strategies.worlds import node, worlds


def _off(name: str, disabled: bool = False) -> Node:
    """A powered-off node: reserved is its total, so it has no capacity."""
    return dataclasses.replace(node(name, 0, disabled=disabled), powered_off=True)


def _changes(solution) -> list[tuple[str, str]]:
    return [
        (a.input_parameters["resource_name"], a.input_parameters["state"]) for a in solution.actions
    ]


def test_powers_off_exactly_the_surplus_empty_nodes():
    """Two nodes in use, four empty: with the defaults one empty node stays on, three go
    off, the last ones first."""
    world = World(
        (
            node("n1", 8, 2),
            node("e1", 8),
            node("e2", 8),
            node("n2", 8, 4),
            node("e3", 8),
            node("e4", 8),
        )
    )
    solution = solve("saving_energy", {}, world)
    assert solution.planner == "weight"
    assert _changes(solution) == [("e4", "off"), ("e3", "off"), ("e2", "off")]
    assert solution.actions[0].input_parameters == {
        "state": "off",
        "resource_name": "e4",
        "resource_id": "uuid-e4",
    }


def test_disabled_empty_nodes_go_off_first():
    world = World((node("n1", 8, 2), node("e1", 8), node("e2", 8, disabled=True), node("e3", 8)))
    assert _changes(solve("saving_energy", {}, world)) == [("e2", "off"), ("e3", "off")]


def test_the_share_of_used_nodes_can_ask_for_more():
    """Ten nodes in use at 30 %: three empty nodes wanted on (more than the minimum 1)."""
    used = [node(f"u{i}", 8, 1) for i in range(10)]
    empty = [node(f"e{i}", 8) for i in range(5)]
    solution = solve("saving_energy", {"free_used_percent": 30.0}, World((*used, *empty)))
    assert _changes(solution) == [("e4", "off"), ("e3", "off")]


def test_powers_on_when_too_few_empty_nodes_are_on():
    """Three wanted, one empty on: two of the off nodes come on, enabled ones first."""
    world = World(
        (
            node("n1", 8, 2),
            node("e1", 8),
            _off("d1", disabled=True),
            _off("o1"),
            _off("o2"),
            _off("o3"),
        )
    )
    solution = solve("saving_energy", {"min_free_hosts_num": 3}, world)
    assert _changes(solution) == [("o1", "on"), ("o2", "on")]
    assert _changes(solve("saving_energy", {"min_free_hosts_num": 9}, world)) == [
        ("o1", "on"),
        ("o2", "on"),
        ("o3", "on"),
        ("d1", "on"),
    ]


def test_nothing_to_change():
    world = World((node("n1", 8, 2), node("e1", 8), _off("o1")))
    assert solve("saving_energy", {}, world).actions == []
    assert solve("saving_energy", {}, World(())).actions == []


def test_upstream_defaults():
    assert solve("saving_energy", {}, World(())).parameters == {
        "free_used_percent": 10.0,
        "min_free_hosts_num": 1,
    }


@settings(max_examples=60, deadline=None)
@given(worlds(), st.lists(st.booleans(), max_size=7), st.integers(0, 4), st.floats(0, 100))
def test_only_empty_nodes_change_and_the_wanted_number_stays_on(world, off, minimum, percent):
    nodes = tuple(
        dataclasses.replace(n, powered_off=True)
        if i < len(off) and off[i] and not n.consumers
        else n
        for i, n in enumerate(world.nodes)
    )
    world = World(nodes)
    parameters = {"min_free_hosts_num": minimum, "free_used_percent": percent}
    changes = dict(_changes(solve("saving_energy", parameters, world)))
    by_name = {n.name: n for n in nodes}
    assert all(not by_name[name].consumers for name in changes)
    assert all(by_name[name].powered_off == (state == "on") for name, state in changes.items())
    in_use = sum(1 for n in nodes if n.consumers)
    wanted = int(max(in_use * percent / 100, minimum))
    free_on = {n.name for n in nodes if not n.consumers and not n.powered_off}
    after = (free_on - {n for n, s in changes.items() if s == "off"}) | {
        n for n, s in changes.items() if s == "on"
    }
    off_left = sum(1 for n in nodes if n.powered_off) - sum(
        1 for s in changes.values() if s == "on"
    )
    assert len(after) == wanted or (len(after) < wanted and off_left == 0)
