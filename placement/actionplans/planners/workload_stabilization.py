"""The ``workload_stabilization`` planner: links only what touches the same thing.

Upstream's links (PLANNER.md section 2): a resize waits for the earlier migrates of its
instance; powering a host down (``turn_host_to_acpi_s3_state``) waits for the resizes
and migrates recorded under that host. Ours adds one rule so the seed's "one action per
instance at a time" holds: every action on an instance also waits for the previous
action on that instance, in processing order.
"""

from __future__ import annotations

from collections.abc import Sequence

from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import Plan, PlannedAction, ProposedAction
from placement.actionplans.planners.options import CurrentHost, PlannerOptions

NAME = "workload_stabilization"

MIGRATE = "migrate"
RESIZE = "resize"
SERVICE_STATE = "change_nova_service_state"
POWER_DOWN = "turn_host_to_acpi_s3_state"
#: Every type this planner can place; anything else is refused, as upstream does.
SUPPORTED = frozenset({MIGRATE, RESIZE, SERVICE_STATE, POWER_DOWN, "sleep", "nop"})


def processing_order(actions: Sequence[ProposedAction], weights: dict[str, int]) -> list[int]:
    """Indices stable-sorted by weight, heaviest first; unknown types refused."""
    for index, action in enumerate(actions):
        if action.action_type not in SUPPORTED or action.action_type not in weights:
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
    """Parents per PLANNER.md section 2, plus the previous action on the same instance."""
    order = processing_order(actions, options.stabilization_weights)
    # key (instance uuid or host name) -> indices recorded under it, in processing order
    recorded: dict[str, list[int]] = {}
    last_on_instance: dict[str, int] = {}
    parents: dict[int, list[int]] = {}
    for index in order:
        action = actions[index]
        params = action.input_parameters
        found: list[int] = []
        if action.action_type == MIGRATE:
            recorded.setdefault(params["resource_id"], []).append(index)
            recorded.setdefault(params["source_node"], []).append(index)
        elif action.action_type == RESIZE:
            found = list(recorded.get(params["resource_id"], ()))
            host = _host_of_resize(params["resource_id"], current_host)
            recorded.setdefault(host, []).append(index)
        elif action.action_type == SERVICE_STATE:
            recorded.setdefault(params["resource_id"], []).append(index)
        elif action.action_type == POWER_DOWN:
            found = _power_down_parents(recorded.get(params["resource_id"], []), actions, parents)
        if action.action_type in (MIGRATE, RESIZE):
            previous = last_on_instance.get(params["resource_id"])
            if previous is not None and previous not in found:
                found.append(previous)
            last_on_instance[params["resource_id"]] = index
        parents[index] = found
    return Plan(tuple(PlannedAction(i, actions[i], tuple(parents[i])) for i in order))


def _power_down_parents(
    on_host: list[int], actions: Sequence[ProposedAction], parents: dict[int, list[int]]
) -> list[int]:
    """The host's resizes, then its migrates that no such resize already waits for."""
    resizes = [i for i in on_host if actions[i].action_type == RESIZE]
    covered = {parent for i in resizes for parent in parents[i]}
    migrates = [i for i in on_host if actions[i].action_type == MIGRATE and i not in covered]
    return resizes + migrates
