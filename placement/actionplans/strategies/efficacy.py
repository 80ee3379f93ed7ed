"""A plan's efficacy indicators, as its goal specifies them.

Every goal of ``goals.py`` lists the indicators a plan for it reports (name,
description, unit); a strategy only knows the values. Filling them in here keeps
the indicators in the goal's order and words, whichever strategy reports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from placement.actionplans.goals import GOALS_BY_NAME


def indicators(goal: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``goal``'s efficacy indicators, each with its value from ``values``."""
    return [
        {
            "name": spec["name"],
            "description": spec["description"],
            "unit": spec["unit"],
            "value": values[spec["name"]],
        }
        for spec in GOALS_BY_NAME[goal].efficacy_specification
    ]
