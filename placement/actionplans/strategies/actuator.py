"""The ``actuator`` strategy: the audit's ``actions`` are the solution, in order.

Each item's top-level ``resource_id`` moves into its ``input_parameters`` (which may
not hold one already); ``planner``, when given, names the planner of the plan.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.errors import ReservedWord
from placement.actionplans.planners import PLANNERS
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import World

RESOURCE_ID = "resource_id"


def solve(parameters: dict[str, Any], world: World) -> Solution:
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


STRATEGY = Strategy(
    name="actuator",
    display_name="Actuator",
    goal="unclassified",
    parameters_spec={
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "actions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "action_type": {"type": "string"},
                        "resource_id": {"type": "string"},
                        "input_parameters": {
                            "type": "object",
                            "properties": {},
                            "additionalProperties": True,
                        },
                    },
                    "required": ["action_type", "input_parameters"],
                    "additionalProperties": True,
                },
            },
            # Ours (doc/planner.md §4): the audit may name the planner of its plan.
            "planner": {"type": "string", "enum": sorted(PLANNERS)},
        },
        "required": ["actions"],
    },
    planner=None,
    needs_world=False,
    solve=solve,
)
