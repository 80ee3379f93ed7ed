"""The ``dummy`` strategy: two messages and a sleep, for trying plans out."""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import NOP, SLEEP
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import World


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """``nop "hello World"``, ``nop para2``, ``sleep para1`` (a repeated nop is dropped)."""
    solution = Solution()
    solution.add(NOP, {"message": "hello World"})
    solution.add(NOP, {"message": parameters["para2"]})
    solution.add(SLEEP, {"duration": parameters["para1"]})
    return solution


STRATEGY = Strategy(
    name="dummy",
    display_name="Dummy strategy",
    goal="dummy",
    parameters_spec={
        "properties": {
            "para1": {
                "description": "number parameter example",
                "type": "number",
                "default": 3.2,
                "minimum": 1.0,
                "maximum": 10.2,
            },
            "para2": {
                "description": "string parameter example",
                "type": "string",
                "default": "hello",
            },
        }
    },
    planner=weight.NAME,
    needs_world=False,
    solve=solve,
)
