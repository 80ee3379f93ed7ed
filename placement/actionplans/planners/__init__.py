"""Planners: turn a solution into a plan whose actions carry their parents.

``make_plan`` is the one entry point; ``PLANNERS`` maps each planner name to its
function. All are deterministic: the same solution and options give the same plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from placement.actionplans.action_types import PROVIDER
from placement.actionplans.errors import UnknownPlanner
from placement.actionplans.model import Plan, ProposedAction
from placement.actionplans.planners import (
    node_resource_consolidation,
    weight,
    workload_stabilization,
)
from placement.actionplans.planners.options import ActionTypes, CurrentHost, PlannerOptions

__all__ = ["PLANNERS", "CurrentHost", "NodeName", "Planner", "PlannerOptions", "make_plan"]

#: Maps a node identifier (provider uuid or name) to the one name planners compare.
NodeName = Callable[[str], str]

#: Parameters that name a node, besides the ``resource_id`` of provider actions.
NODE_FIELDS = ("source_node", "destination_node")

Planner = Callable[[Sequence[ProposedAction], PlannerOptions, CurrentHost | None], Plan]

PLANNERS: dict[str, Planner] = {
    weight.NAME: weight.plan,
    workload_stabilization.NAME: workload_stabilization.plan,
    node_resource_consolidation.NAME: node_resource_consolidation.plan,
}


def make_plan(
    planner: str | Planner | None,
    actions: Sequence[ProposedAction],
    options: PlannerOptions,
    current_host: CurrentHost | None = None,
    node_name: NodeName | None = None,
) -> Plan:
    """Plan ``actions`` with the named planner (None: ``options.default_planner``), or
    with ``planner`` itself when a strategy made one for its plan (``parallel.limited``).

    ``current_host(consumer uuid)`` gives the host name a resize's instance lives on;
    ``node_name`` turns each node identifier of the actions into that same kind of
    name, so a host given by uuid in one action and by name in another is one key
    (without it, identifiers are compared as given). The plan holds the actions
    exactly as passed in.

    Raises UnknownPlanner for a name that is not in PLANNERS, UnsupportedActionType
    (with the action's index) for a type the planner cannot place, and whatever
    ``current_host`` or ``node_name`` raise (ConsumerHasNoAllocations, say).
    """
    run = planner if callable(planner) else _named(planner, options)
    keyed = (
        actions
        if node_name is None
        else [_named_nodes(a, options.action_types, node_name) for a in actions]
    )
    plan = run(keyed, options, current_host)
    return Plan(tuple(replace(p, action=actions[p.index]) for p in plan.actions))


def _named(name: str | None, options: PlannerOptions) -> Planner:
    """The planner called ``name`` (None: the configured default)."""
    chosen = options.default_planner if name is None else name
    if chosen not in PLANNERS:
        raise UnknownPlanner(chosen, PLANNERS)
    return PLANNERS[chosen]


def _named_nodes(
    action: ProposedAction, action_types: ActionTypes, node_name: NodeName
) -> ProposedAction:
    """A copy of ``action`` whose node identifiers are replaced by their names."""
    params = dict(action.input_parameters)
    fields = list(NODE_FIELDS)
    declared = action_types.get(action.action_type)
    if declared is not None and declared.resource_kind == PROVIDER:
        fields.append("resource_id")
    for field in fields:
        if isinstance(params.get(field), str):
            params[field] = node_name(params[field])
    return ProposedAction(action.action_type, params)
