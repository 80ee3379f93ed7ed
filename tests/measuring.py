"""A strategy that reads measured load, made for a test from a built-in one.

The metric strategies are declared elsewhere; to test how an audit is measured
(the queries asked outside any transaction, the answers in the world before
``solve``, the FAILED audit when no datasource answers), a test swaps the
declaration of ``node_resource_consolidation`` (goal ``server_consolidation``)
for one that declares ``measures`` and records the world it is given.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from placement.actionplans.measured import Query
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import STRATEGIES_BY_NAME
from placement.actionplans.world import World

NAME = "node_resource_consolidation"
GOAL = "server_consolidation"


def measuring(monkeypatch: pytest.MonkeyPatch, queries: tuple[Query, ...]) -> list[World]:
    """Make ``NAME`` ask ``queries``; returns the worlds it then solves on."""
    seen: list[World] = []

    def solve(parameters: dict, world: World) -> Solution:
        seen.append(world)
        return Solution()

    strategy = replace(STRATEGIES_BY_NAME[NAME], measures=lambda p, w: queries, solve=solve)
    monkeypatch.setitem(STRATEGIES_BY_NAME, NAME, strategy)
    return seen


def audit_body(audit_type: str = "ONESHOT", **more: object) -> dict:
    """An audit of the measuring strategy."""
    return {"goal": GOAL, "strategy": NAME, "audit_type": audit_type, **more}
