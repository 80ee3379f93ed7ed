"""The ``weight`` planner: layers of equal weight, at most ``parallelization`` wide.

Actions are grouped by weight value, heaviest group first, each group cut into
chunks; every action of a chunk waits for the whole chunk before it. Resource ids
are never looked at (doc/planner.md §1).
"""

from __future__ import annotations

from collections.abc import Sequence

from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import Plan, PlannedAction, ProposedAction
from placement.actionplans.planners.options import CurrentHost, PlannerOptions

NAME = "weight"


def chunk_size(types: set[str], parallelization: dict[str, int]) -> int:
    """The smallest parallelization among the types present; missing or < 1 counts as 1."""
    return min(max(1, parallelization.get(action_type, 1)) for action_type in types)


def layers(actions: Sequence[ProposedAction], options: PlannerOptions) -> list[list[int]]:
    """The chunks of solution indices, in walk order."""
    weights = options.weight_weights
    groups: dict[int, list[int]] = {}
    for index, action in enumerate(actions):
        if action.action_type not in weights:
            raise UnsupportedActionType(index, action.action_type, NAME)
        groups.setdefault(weights[action.action_type], []).append(index)
    chunks: list[list[int]] = []
    for weight in sorted(groups, reverse=True):
        members = groups[weight]
        size = chunk_size({actions[i].action_type for i in members}, options.weight_parallelization)
        chunks.extend(members[start : start + size] for start in range(0, len(members), size))
    return chunks


def plan(
    actions: Sequence[ProposedAction],
    options: PlannerOptions,
    current_host: CurrentHost | None = None,
) -> Plan:
    """Link every chunk fully to the chunk before it; plan order is the walk order."""
    planned: list[PlannedAction] = []
    previous: tuple[int, ...] = ()
    for chunk in layers(actions, options):
        planned.extend(PlannedAction(index, actions[index], previous) for index in chunk)
        previous = tuple(chunk)
    return Plan(tuple(planned))
