"""A plan's efficacy indicators, as its goal specifies them.

Every goal of ``goals.py`` lists the indicators a plan for it reports (name,
description, unit); a strategy only knows the values. Filling them in here keeps
the indicators in the goal's order and words, whichever strategy reports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from placement.actionplans.goals import GOALS_BY_NAME
from placement.actionplans.solution import Solution


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


def consolidation(solution: Solution, nodes: int, released: int, migrations: int) -> None:
    """``server_consolidation``'s indicators on ``solution``, and its global efficacy:
    the share of the ``nodes`` counted that the plan releases (0 for none counted)."""
    solution.efficacy_indicators = indicators(
        "server_consolidation",
        {
            "compute_nodes_count": nodes,
            "released_compute_nodes_count": released,
            "instance_migrations_count": migrations,
        },
    )
    solution.global_efficacy = [
        {
            "name": "released_nodes_ratio",
            "description": "Ratio of released compute nodes divided by the total number of "
            "enabled compute nodes.",
            "unit": "%",
            "value": released / nodes * 100 if nodes else 0,
        }
    ]


def balancing(
    solution: Solution, migrations: int, instances: int, before: float, after: float
) -> None:
    """``workload_balancing``'s indicators on ``solution`` (the spread ``before`` and
    ``after`` the plan), and its global efficacy: the share of the ``instances``
    audited that the plan moves (0 when none moves)."""
    solution.efficacy_indicators = indicators(
        "workload_balancing",
        {
            "instance_migrations_count": migrations,
            "instances_count": instances,
            "standard_deviation_after_audit": after,
            "standard_deviation_before_audit": before,
        },
    )
    solution.global_efficacy = [
        {
            "name": "live_migrations_count",
            "description": "Ratio of migrated virtual machines to audited virtual machines",
            "unit": "%",
            "value": migrations / instances * 100 if migrations and instances else 0,
        }
    ]
