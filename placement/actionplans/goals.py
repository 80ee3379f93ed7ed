"""The built-in goals: what an audit may aim at, and the efficacy indicators a plan
for each reports.

Order is upstream's entry-point order (alphabetical), which is also the order of the
rows the object layer writes. Strategies name their goal by ``name``; this module
imports nothing of theirs, so a strategy may read its goal's specification here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GoalSpec:
    """A goal: what an audit wants, and the indicators a plan reports for it."""

    name: str
    display_name: str
    efficacy_specification: tuple[dict[str, Any], ...]


def _indicator(name: str, description: str, value_type: str = "integer") -> dict[str, Any]:
    """One efficacy-specification entry; ``schema`` is JSON text, as upstream serves it."""
    return {
        "name": name,
        "description": description,
        "unit": None,
        "schema": json.dumps({"type": value_type, "minimum": 0}),
    }


_MIGRATIONS_COUNT = _indicator(
    "instance_migrations_count", "The number of VM migrations to be performed."
)

GOALS: tuple[GoalSpec, ...] = (
    GoalSpec("airflow_optimization", "Airflow Optimization", ()),
    GoalSpec("cluster_maintaining", "Cluster Maintaining", ()),
    GoalSpec("dummy", "Dummy goal", ()),
    GoalSpec(
        "hardware_maintenance",
        "Hardware Maintenance",
        (
            _indicator(
                "live_migrate_instance_count", "The number of instances actually live migrated."
            ),
            _indicator(
                "planned_live_migrate_instance_count",
                "The number of instances planned to live migrate.",
            ),
            _indicator(
                "cold_migrate_instance_count", "The number of instances actually cold migrated."
            ),
            _indicator(
                "planned_cold_migrate_instance_count",
                "The number of instances planned to cold migrate.",
            ),
            _indicator("volume_migrate_count", "The number of detached volumes actually migrated."),
            _indicator(
                "planned_volume_migrate_count", "The number of detached volumes planned to migrate."
            ),
            _indicator("volume_update_count", "The number of attached volumes actually migrated."),
            _indicator(
                "planned_volume_update_count", "The number of attached volumes planned to migrate."
            ),
        ),
    ),
    GoalSpec("noisy_neighbor", "Noisy Neighbor", ()),
    GoalSpec("saving_energy", "Saving Energy", ()),
    GoalSpec(
        "server_consolidation",
        "Server Consolidation",
        (
            _indicator("compute_nodes_count", "The total number of enabled compute nodes."),
            _indicator(
                "released_compute_nodes_count", "The number of compute nodes to be released."
            ),
            _MIGRATIONS_COUNT,
        ),
    ),
    GoalSpec("thermal_optimization", "Thermal Optimization", ()),
    GoalSpec("unclassified", "Unclassified", ()),
    GoalSpec(
        "workload_balancing",
        "Workload Balancing",
        (
            _MIGRATIONS_COUNT,
            _indicator("instances_count", "The total number of audited instances in strategy."),
            _indicator(
                "standard_deviation_after_audit",
                "The value of resulted standard deviation.",
                "number",
            ),
            _indicator(
                "standard_deviation_before_audit",
                "The value of original standard deviation.",
                "number",
            ),
        ),
    ),
)

GOALS_BY_NAME: dict[str, GoalSpec] = {goal.name: goal for goal in GOALS}
