"""A strategy's output: the ordered actions, efficacy, and the planner it asks for."""

from __future__ import annotations

from typing import Any

from placement.actionplans.jsonvalues import json_equal
from placement.actionplans.model import ProposedAction


class Solution:
    """Actions in the order the strategy proposed them, exact duplicates dropped.

    A duplicate is an action of the same type whose parameters are equal as JSON
    values; the first one stays, so planners see each distinct action once.
    ``planner`` is the planner the strategy insists on, or None to let the
    configuration decide (PLANNER.md section 4).
    """

    def __init__(self, planner: str | None = None) -> None:
        self.actions: list[ProposedAction] = []
        self.efficacy_indicators: list[dict[str, Any]] = []
        self.global_efficacy: list[dict[str, Any]] = []
        self.planner = planner

    def add(self, action_type: str, input_parameters: dict[str, Any]) -> None:
        """Append an action unless an equal one is already there."""
        candidate = ProposedAction(action_type, dict(input_parameters))
        for existing in self.actions:
            if existing.action_type == action_type and json_equal(
                existing.input_parameters, candidate.input_parameters
            ):
                return
        self.actions.append(candidate)
