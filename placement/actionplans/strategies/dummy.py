"""The ``dummy`` strategy: two messages and a sleep, for trying plans out."""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import NOP, SLEEP
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import World


def example_parameters(number: str, text: str) -> dict[str, Any]:
    """Upstream's sample parameters of its dummy strategies: a bounded number
    (3.2, from 1.0 to 10.2) and a string ("hello"), under the names each gives them."""
    return {
        "properties": {
            number: {
                "description": "number parameter example",
                "type": "number",
                "default": 3.2,
                "minimum": 1.0,
                "maximum": 10.2,
            },
            text: {
                "description": "string parameter example",
                "type": "string",
                "default": "hello",
            },
        }
    }


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
    parameters_spec=example_parameters("para1", "para2"),
    planner=weight.NAME,
    needs_world=False,
    solve=solve,
)
