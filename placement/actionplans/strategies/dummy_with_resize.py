"""The ``dummy_with_resize`` strategy: upstream's fixed plan of greetings, a sleep,
two live migrations and a resize of two made-up instances, for trying plans out.

The instances and nodes are upstream's constants and exist nowhere here, so the
plan is one to look at (RECOMMENDED): started, its moves would fail. Its
parameters are only accepted, as upstream only logs them.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import NOP, RESIZE, SLEEP
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.dummy import example_parameters
from placement.actionplans.world import World

#: Upstream's made-up instances: both migrate, the second is resized too.
FIRST_INSTANCE = "b199db0c-1408-4d52-b5a5-5ca14de0ff36"
SECOND_INSTANCE = "8db1b3c1-7938-4c34-8c03-6de14b874f8f"


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """``nop``, ``nop``, ``sleep 5.0``, two live migrations compute2 → compute3, a resize."""
    solution = Solution()
    solution.add(NOP, {"message": "hello World"})
    solution.add(NOP, {"message": "Welcome"})
    solution.add(SLEEP, {"duration": 5.0})
    for instance in (FIRST_INSTANCE, SECOND_INSTANCE):
        solution.add_migration(instance, "compute2", "compute3")
    solution.add(RESIZE, {"resource_id": SECOND_INSTANCE, "flavor": "x2"})
    return solution


STRATEGY = Strategy(
    name="dummy_with_resize",
    display_name="Dummy strategy with resize",
    goal="dummy",
    parameters_spec=example_parameters("para1", "para2"),
    planner=weight.NAME,
    needs_world=False,
    solve=solve,
)
