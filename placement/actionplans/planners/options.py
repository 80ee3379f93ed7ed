"""Planner options as plain values (the configuration layer builds them).

Their defaults are the action types' own: each declaration says its weight and
parallelization for the ``weight`` planner and, if that planner can place it,
its weight for ``workload_stabilization``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from placement.actionplans.action_types import BUILTIN, ActionTypeDeclaration

#: Looks up the host an instance (consumer uuid) lives on before the plan runs.
CurrentHost = Callable[[str], str]

ActionTypes = Mapping[str, ActionTypeDeclaration]


def weights(action_types: ActionTypes) -> dict[str, int]:
    """``[watcher_planners.weight] weights`` by default: every type's declared weight."""
    return {name: d.weight for name, d in action_types.items()}


def parallelization(action_types: ActionTypes) -> dict[str, int]:
    """``[watcher_planners.weight] parallelization`` by default."""
    return {name: d.parallelization for name, d in action_types.items()}


def stabilization_weights(action_types: ActionTypes) -> dict[str, int]:
    """``[watcher_planners.workload_stabilization] weights`` by default: the types it can
    place, with their declared weight."""
    return {
        name: d.stabilization_weight
        for name, d in action_types.items()
        if d.stabilization_weight is not None
    }


#: The defaults of the built-in types (doc/planner.md §1 and §2).
DEFAULT_WEIGHTS = weights(BUILTIN)
DEFAULT_PARALLELIZATION = parallelization(BUILTIN)
DEFAULT_STABILIZATION_WEIGHTS = stabilization_weights(BUILTIN)

#: ``[watcher_planner] planner`` default.
DEFAULT_PLANNER = "weight"


@dataclass(frozen=True)
class PlannerOptions:
    """Every planner option; a configured dict replaces the default dict whole.

    ``action_types`` are the installed types' declarations: what ``resource_id``
    designates, and which types ``workload_stabilization`` can place; they are
    those ``executor`` performs (None: not said, an audit's refusals name none).
    """

    weight_weights: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    weight_parallelization: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_PARALLELIZATION)
    )
    stabilization_weights: dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_STABILIZATION_WEIGHTS)
    )
    default_planner: str = DEFAULT_PLANNER
    action_types: ActionTypes = field(default_factory=lambda: BUILTIN)
    executor: str | None = None
