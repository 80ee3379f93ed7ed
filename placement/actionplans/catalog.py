"""The built-in goals and strategies, as the API lists them.

Order is upstream's entry-point order (alphabetical), which is also the order of the
rows the object layer writes, hence the default list order. Only strategies this
service can run are listed (PLANNER.md section 4: a strategy's planner, or None when
the configuration or the audit chooses).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from placement.actionplans.planners import PLANNERS


@dataclass(frozen=True)
class GoalSpec:
    """A goal: what an audit wants, and the indicators a plan reports for it."""

    name: str
    display_name: str
    efficacy_specification: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class StrategySpec:
    """A strategy: which goal it serves, the parameters it takes, the planner it uses."""

    name: str
    display_name: str
    goal: str
    parameters_spec: dict[str, Any]
    planner: str | None


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

ACTUATOR_PARAMETERS: dict[str, Any] = {
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
        # Ours (PLANNER.md section 4): the audit may name the planner of its plan.
        "planner": {"type": "string", "enum": sorted(PLANNERS)},
    },
    "required": ["actions"],
}

DUMMY_PARAMETERS: dict[str, Any] = {
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
}

HOST_MAINTENANCE_PARAMETERS: dict[str, Any] = {
    "properties": {
        "maintenance_node": {
            "description": "The name of the compute node which need maintenance",
            "type": "string",
        },
        "backup_node": {
            "description": "The name of the compute node which will backup the maintenance node.",
            "type": "string",
        },
        "disable_live_migration": {
            "description": "Disable live migration in maintenance. If True, active instances "
            "will be cold migrated if `disable_cold_migration` is not set, otherwise they "
            "will be stopped.",
            "type": "boolean",
            "default": False,
        },
        "disable_cold_migration": {
            "description": "Disable cold migration in maintenance. If True, non-active "
            "instances will not be cold migrated.",
            "type": "boolean",
            "default": False,
        },
    },
    "required": ["maintenance_node"],
}

NODE_RESOURCE_CONSOLIDATION_PARAMETERS: dict[str, Any] = {
    "properties": {
        "host_choice": {
            "description": "The way to select the server migration destination node. The "
            "value 'auto' means that Nova scheduler selects the destination node, and "
            "'specify' means the strategy specifies the destination.",
            "type": "string",
            "default": "auto",
        }
    }
}

STRATEGIES: tuple[StrategySpec, ...] = (
    StrategySpec("actuator", "Actuator", "unclassified", ACTUATOR_PARAMETERS, None),
    StrategySpec("dummy", "Dummy strategy", "dummy", DUMMY_PARAMETERS, "weight"),
    StrategySpec(
        "host_maintenance",
        "Host Maintenance Strategy",
        "cluster_maintaining",
        HOST_MAINTENANCE_PARAMETERS,
        "weight",
    ),
    StrategySpec(
        "node_resource_consolidation",
        "Node Resource Consolidation strategy",
        "server_consolidation",
        NODE_RESOURCE_CONSOLIDATION_PARAMETERS,
        "node_resource_consolidation",
    ),
)

GOALS_BY_NAME: dict[str, GoalSpec] = {goal.name: goal for goal in GOALS}
STRATEGIES_BY_NAME: dict[str, StrategySpec] = {strategy.name: strategy for strategy in STRATEGIES}
