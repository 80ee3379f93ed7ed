"""Planners: turn a solution into a plan whose actions carry their parents.

``make_plan`` is the one entry point; ``PLANNERS`` maps each planner name to its
function. All are deterministic: the same solution and options give the same plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from placement.actionplans.errors import UnknownPlanner
from placement.actionplans.model import Plan, ProposedAction
from placement.actionplans.planners import (
    node_resource_consolidation,
    weight,
    workload_stabilization,
)
from placement.actionplans.planners.options import CurrentHost, PlannerOptions

__all__ = ["PLANNERS", "CurrentHost", "Planner", "PlannerOptions", "make_plan"]

Planner = Callable[[Sequence[ProposedAction], PlannerOptions, CurrentHost | None], Plan]

PLANNERS: dict[str, Planner] = {
    weight.NAME: weight.plan,
    workload_stabilization.NAME: workload_stabilization.plan,
    node_resource_consolidation.NAME: node_resource_consolidation.plan,
}


def make_plan(
    planner: str | None,
    actions: Sequence[ProposedAction],
    options: PlannerOptions,
    current_host: CurrentHost | None = None,
) -> Plan:
    """Plan ``actions`` with the named planner (None: ``options.default_planner``).

    Raises UnknownPlanner for a name that is not in PLANNERS, UnsupportedActionType
    (with the action's index) for a type the planner cannot place, and whatever
    ``current_host`` raises (ConsumerHasNoAllocations) for a resize's instance.
    """
    name = options.default_planner if planner is None else planner
    if name not in PLANNERS:
        raise UnknownPlanner(name, PLANNERS)
    return PLANNERS[name](actions, options, current_host)
