"""The ``workload_stabilization`` planner: links only what touches the same thing.

Upstream's links (doc/planner.md §2): a resize waits for the earlier migrates of its
instance; powering a host down (``turn_host_to_acpi_s3_state``) waits for the resizes
and migrates recorded under that host. Ours adds one rule so the seed's "one action per
instance at a time" holds: every action on an instance also waits for the previous
action on that instance, in processing order.
"""

from __future__ import annotations

from collections.abc import Sequence

from placement.actionplans.action_types.names import (
    CHANGE_NOVA_SERVICE_STATE,
    MIGRATE,
    RESIZE,
    TURN_HOST_TO_ACPI_S3_STATE,
)
from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import Plan, PlannedAction, ProposedAction
from placement.actionplans.planners.options import ActionTypes, CurrentHost, PlannerOptions

NAME = "workload_stabilization"


def processing_order(
    actions: Sequence[ProposedAction], weights: dict[str, int], action_types: ActionTypes
) -> list[int]:
    """Indices stable-sorted by weight, heaviest first.

    A type is refused, as upstream does, unless it has a configured weight and its
    declaration lets this planner place it (declares a stabilization weight).
    """
    for index, action in enumerate(actions):
        declared = action_types.get(action.action_type)
        placeable = declared is not None and declared.stabilization_weight is not None
        if not placeable or action.action_type not in weights:
            raise UnsupportedActionType(index, action.action_type, NAME)
    return sorted(range(len(actions)), key=lambda i: -weights[actions[i].action_type])


def _host_of_resize(resource_id: str, current_host: CurrentHost | None) -> str:
    if current_host is None:
        raise ValueError("the workload_stabilization planner needs current_host for resizes")
    return current_host(resource_id)


def plan(
    actions: Sequence[ProposedAction],
    options: PlannerOptions,
    current_host: CurrentHost | None = None,
) -> Plan:
    """Parents per doc/planner.md §2, plus the previous action on the same instance."""
    order = processing_order(actions, options.stabilization_weights, options.action_types)
    # key (instance uuid or host name) -> indices recorded under it, in processing order
    recorded: dict[str, list[int]] = {}
    last_on_instance: dict[str, int] = {}
    parents: dict[int, list[int]] = {}
    for index in order:
        action = actions[index]
        found = _upstream_parents(index, actions, recorded, parents, current_host)
        if options.action_types[action.action_type].acts_on_instance:
            instance = action.input_parameters["resource_id"]
            previous = last_on_instance.get(instance)
            if previous is not None and previous not in found:
                found.append(previous)
            last_on_instance[instance] = index
        parents[index] = found
    return Plan(tuple(PlannedAction(i, actions[i], tuple(parents[i])) for i in order))


def _upstream_parents(
    index: int,
    actions: Sequence[ProposedAction],
    recorded: dict[str, list[int]],
    parents: dict[int, list[int]],
    current_host: CurrentHost | None,
) -> list[int]:
    """Upstream's parents of action ``index``; records it under the keys it touches."""
    action = actions[index]
    params = action.input_parameters
    if action.action_type == MIGRATE:
        recorded.setdefault(params["resource_id"], []).append(index)
        recorded.setdefault(params["source_node"], []).append(index)
    elif action.action_type == RESIZE:
        found = list(recorded.get(params["resource_id"], ()))
        host = _host_of_resize(params["resource_id"], current_host)
        recorded.setdefault(host, []).append(index)
        return found
    elif action.action_type == CHANGE_NOVA_SERVICE_STATE:
        recorded.setdefault(params["resource_id"], []).append(index)
    elif action.action_type == TURN_HOST_TO_ACPI_S3_STATE:
        return _power_down_parents(recorded.get(params["resource_id"], []), actions, parents)
    return []


def _power_down_parents(
    on_host: list[int], actions: Sequence[ProposedAction], parents: dict[int, list[int]]
) -> list[int]:
    """The host's resizes, then its migrates that no such resize already waits for."""
    resizes = [i for i in on_host if actions[i].action_type == RESIZE]
    covered = {parent for i in resizes for parent in parents[i]}
    migrates = [i for i in on_host if actions[i].action_type == MIGRATE and i not in covered]
    return resizes + migrates
