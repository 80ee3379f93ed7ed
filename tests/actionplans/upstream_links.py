"""A plainly written model of upstream Watcher's workload_stabilization links.

It states doc/planner.md §2 step by step, without our per-instance rule, so the
property tests can check that our plan's happens-before order contains every link
upstream would make. Written for reading, not speed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from placement.actionplans.model import ProposedAction


def upstream_parents(
    actions: Sequence[ProposedAction],
    weights: dict[str, int],
    current_host: Callable[[str], str],
) -> dict[int, list[int]]:
    """Index -> parents, as upstream's planner would set them."""
    order = sorted(range(len(actions)), key=lambda i: weights[actions[i].action_type], reverse=True)
    # Python's sort is stable with reverse=True too: ties keep solution order.
    recorded: dict[str, list[int]] = {}
    result: dict[int, list[int]] = {}

    def record(key: str, index: int) -> None:
        recorded.setdefault(key, []).append(index)

    for index in order:
        kind = actions[index].action_type
        params = actions[index].input_parameters
        if kind == "migrate":
            result[index] = []
            record(params["resource_id"], index)
            record(params["source_node"], index)
        elif kind == "resize":
            result[index] = list(recorded.get(params["resource_id"], []))
            record(current_host(params["resource_id"]), index)
        elif kind == "change_nova_service_state":
            result[index] = []
            record(params["resource_id"], index)
        elif kind == "turn_host_to_acpi_s3_state":
            on_host = recorded.get(params["resource_id"], [])
            resizes = [i for i in on_host if actions[i].action_type == "resize"]
            resize_parent_lists = [result[i] for i in resizes]
            migrates = [
                i
                for i in on_host
                if actions[i].action_type == "migrate" and [i] not in resize_parent_lists
            ]
            result[index] = resizes + migrates
        else:  # sleep, nop
            result[index] = []
    return result
