"""Planner options as plain values (the configuration layer builds them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: Looks up the host an instance (consumer uuid) lives on before the plan runs.
CurrentHost = Callable[[str], str]

#: ``[watcher_planners.weight] weights`` defaults (PLANNER.md section 1).
DEFAULT_WEIGHTS: dict[str, int] = {
    "turn_host_to_acpi_s3_state": 10,
    "resize": 20,
    "migrate": 30,
    "sleep": 40,
    "change_nova_service_state": 50,
    "nop": 70,
    "change_node_power_state": 9,
    "volume_migrate": 60,
    "shelve": 37,
    "stop": 35,
    "delete": 33,
}

#: ``[watcher_planners.weight] parallelization`` defaults.
DEFAULT_PARALLELIZATION: dict[str, int] = {
    "turn_host_to_acpi_s3_state": 2,
    "resize": 2,
    "migrate": 2,
    "sleep": 1,
    "change_nova_service_state": 1,
    "nop": 1,
    "change_node_power_state": 2,
    "volume_migrate": 2,
    "shelve": 2,
    "stop": 2,
    "delete": 2,
}

#: ``[watcher_planners.workload_stabilization] weights`` defaults.
DEFAULT_STABILIZATION_WEIGHTS: dict[str, int] = {
    "turn_host_to_acpi_s3_state": 0,
    "resize": 1,
    "migrate": 2,
    "sleep": 3,
    "change_nova_service_state": 4,
    "nop": 5,
}

#: ``[watcher_planner] planner`` default.
DEFAULT_PLANNER = "weight"


@dataclass(frozen=True)
class PlannerOptions:
    """Every planner option; a configured dict replaces the default dict whole."""

    weight_weights: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    weight_parallelization: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_PARALLELIZATION)
    )
    stabilization_weights: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_STABILIZATION_WEIGHTS)
    )
    default_planner: str = DEFAULT_PLANNER
