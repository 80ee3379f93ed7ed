"""The planner of ``zone_migration``'s plans: solution order, bounded parallelism.

Upstream's ``zone_migration`` caps how many migrations one plan holds
(``parallel_total`` in all, ``parallel_per_node`` per source node) and leaves the
rest to later audits. Here the plan holds every migration and the limits become
its parents: the actions form ``total`` lanes (each action waits for the one
``total`` places before it) and, per source node, ``per_node`` lanes (each waits
for the one ``per_node`` places before it among that node's). An action in a
lane cannot start before the previous one in it has finished, so no more than
``total`` run at once, nor more than ``per_node`` off one node, and they start in
the solution's order (its priorities). The limits are an audit's parameters, so
this planner is made for each plan (:func:`limited`) and passed with the
solution, not chosen by name (doc/planner.md §4).
"""

from __future__ import annotations

from collections.abc import Sequence

from placement.actionplans.action_types.names import MIGRATE
from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import Plan, PlannedAction, ProposedAction
from placement.actionplans.planners import Planner
from placement.actionplans.planners.options import CurrentHost, PlannerOptions

#: The name a refusal gives this planner.
NAME = "zone_migration"


def lanes(actions: Sequence[ProposedAction], total: int, per_node: int) -> Plan:
    """Every migrate in solution order, each waiting for its predecessors in its lanes.

    Limits below 1 count as 1 (as the ``weight`` planner's parallelization does).
    Raises UnsupportedActionType for any type but ``migrate``.
    """
    total, per_node = max(total, 1), max(per_node, 1)
    by_node: dict[str, list[int]] = {}
    planned = []
    for index, action in enumerate(actions):
        if action.action_type != MIGRATE:
            raise UnsupportedActionType(index, action.action_type, NAME)
        same_node = by_node.setdefault(action.input_parameters["source_node"], [])
        parents = set()
        if index >= total:
            parents.add(index - total)
        if len(same_node) >= per_node:
            parents.add(same_node[-per_node])
        same_node.append(index)
        planned.append(PlannedAction(index, action, tuple(sorted(parents))))
    return Plan(tuple(planned))


def limited(total: int, per_node: int) -> Planner:
    """A planner placing actions in lanes of these limits (see :func:`lanes`)."""

    def plan(
        actions: Sequence[ProposedAction],
        options: PlannerOptions,
        current_host: CurrentHost | None = None,
    ) -> Plan:
        return lanes(actions, total, per_node)

    return plan
