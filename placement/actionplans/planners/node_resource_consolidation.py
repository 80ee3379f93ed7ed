"""The ``node_resource_consolidation`` planner: disable, drain node by node, re-enable.

Disables come first and have no parents; each source node's migrations form a chain
that starts after every disable; enables wait for the last migration of every node
(doc/planner.md §3).
"""

from __future__ import annotations

from collections.abc import Sequence

from placement.actionplans.action_types.names import CHANGE_NOVA_SERVICE_STATE, MIGRATE
from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import Plan, PlannedAction, ProposedAction
from placement.actionplans.planners.options import CurrentHost, PlannerOptions

NAME = "node_resource_consolidation"


def plan(
    actions: Sequence[ProposedAction],
    options: PlannerOptions,
    current_host: CurrentHost | None = None,
) -> Plan:
    """Plan order: disables, migrates grouped by source node, enables."""
    disables: list[int] = []
    enables: list[int] = []
    chains: dict[str, list[int]] = {}
    for index, action in enumerate(actions):
        if action.action_type == CHANGE_NOVA_SERVICE_STATE:
            is_disable = action.input_parameters.get("state") == "disabled"
            (disables if is_disable else enables).append(index)
        elif action.action_type == MIGRATE:
            chains.setdefault(action.input_parameters["source_node"], []).append(index)
        else:
            raise UnsupportedActionType(index, action.action_type, NAME)
    planned = [PlannedAction(i, actions[i], ()) for i in disables]
    for chain in chains.values():
        for position, index in enumerate(chain):
            previous = (chain[position - 1],) if position else ()
            planned.append(PlannedAction(index, actions[index], tuple(disables) + previous))
    last_migrates = tuple(chain[-1] for chain in chains.values())
    planned.extend(PlannedAction(i, actions[i], last_migrates) for i in enables)
    return Plan(tuple(planned))
