"""The one registry of strategies: each declaration's flag and algorithm decide what
``solve`` passes and runs."""

from __future__ import annotations

import dataclasses

import pytest

from placement.actionplans import strategies
from placement.actionplans.errors import InvalidAuditParameters, StrategyNotRunnable
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import dummy, needs_world, solve
from placement.actionplans.world import Node, World

WORLD = World((Node("n1-uuid", "n1", {"VCPU": 4}, {}),))


@pytest.fixture
def seen(monkeypatch):
    """The dummy strategy swapped for one recording the parameters and world it gets."""
    calls: list[tuple[dict, World]] = []

    def record(parameters, world):
        calls.append((parameters, world))
        return Solution()

    def declare(*, needs_world: bool) -> None:
        fake = dataclasses.replace(dummy.STRATEGY, needs_world=needs_world, solve=record)
        monkeypatch.setitem(strategies.STRATEGIES_BY_NAME, "dummy", fake)

    return declare, calls


def test_needs_world_is_the_declarations_flag():
    for strategy in strategies.STRATEGIES:
        assert needs_world(strategy.name) is strategy.needs_world
    assert needs_world("outlet_temperature") is False


def test_a_strategy_that_reads_no_capacity_gets_an_empty_world(seen):
    declare, calls = seen
    declare(needs_world=False)
    solution = solve("dummy", {"para1": 2})
    assert calls == [({"para1": 2, "para2": "hello"}, World(()))]
    assert solution.planner == dummy.STRATEGY.planner


def test_a_capacity_strategy_gets_the_world_given(seen):
    declare, calls = seen
    declare(needs_world=True)
    solve("dummy", {}, WORLD)
    assert [world for _, world in calls] == [WORLD]


def test_without_a_world_a_capacity_strategy_does_not_run(seen):
    declare, calls = seen
    declare(needs_world=True)
    with pytest.raises(StrategyNotRunnable, match="^Strategy dummy cannot run"):
        solve("dummy", {})
    with pytest.raises(InvalidAuditParameters):  # parameters are checked first
        solve("dummy", {"para1": "x"})
    assert calls == []
