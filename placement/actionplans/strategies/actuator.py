"""The ``actuator`` strategy: the audit's ``actions`` are the solution, in order.

Each item's top-level ``resource_id`` moves into its ``input_parameters`` (which may
not hold one already); ``planner``, when given, names the planner of the plan.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.errors import ReservedWord
from placement.actionplans.solution import Solution

RESOURCE_ID = "resource_id"


def solve(parameters: dict[str, Any]) -> Solution:
    """One action per item of ``parameters["actions"]``; exact duplicates dropped."""
    solution = Solution(planner=parameters.get("planner"))
    for index, item in enumerate(parameters["actions"]):
        input_parameters = dict(item["input_parameters"])
        if RESOURCE_ID in input_parameters:
            raise ReservedWord(index, RESOURCE_ID)
        if RESOURCE_ID in item:
            input_parameters[RESOURCE_ID] = item[RESOURCE_ID]
        solution.add(item["action_type"], input_parameters)
    return solution
