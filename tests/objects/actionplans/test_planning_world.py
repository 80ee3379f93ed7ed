"""Audit creation reads the capacity snapshot exactly when the strategy declares it
needs one."""

from __future__ import annotations

import dataclasses

import pytest

from placement.actionplans import strategies
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import dummy
from placement.actionplans.world import World
from placement.objects.actionplans import planning

SNAPSHOT = World(())


@pytest.mark.parametrize("flag", [True, False])
def test_the_declaration_decides_whether_the_world_is_read(store, monkeypatch, flag):
    reads = []
    given = []

    def read_world(conn):
        reads.append(conn)
        return SNAPSHOT

    def record(parameters, world):
        given.append(world)
        return Solution()

    monkeypatch.setattr(planning, "read_world", read_world)
    fake = dataclasses.replace(dummy.STRATEGY, needs_world=flag, solve=record)
    monkeypatch.setitem(strategies.STRATEGIES_BY_NAME, "dummy", fake)
    store.audit(goal="dummy", strategy="dummy", parameters={})
    assert len(reads) == (1 if flag else 0)
    assert len(given) == 1
    assert (given[0] is SNAPSHOT) is flag
