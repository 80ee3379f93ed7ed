"""The ``zone_migration`` strategy, compute part: drain several nodes at once.

Every server on each ``compute_nodes[].src_node`` is live-migrated: to that
entry's ``dst_node`` when it names one, else to an enabled node that is not being
drained and has room (the emptiest, as ``host_maintenance`` spreads), arrivals
taking the free capacity so the whole plan fits at once; a server that fits
nowhere (or not on its named destination) fails the audit, naming it. Servers are
ordered by upstream's ``priority`` (projects, source nodes, then a size or age
key), and the order plus ``parallel_total`` and ``parallel_per_node`` become the
plan's parents (``planners/parallel.py``): upstream puts only that many
migrations in a plan, we plan them all and let that many run at once.

The storage half (``storage_pools``: Cinder pools, volume types, retypes) has no
counterpart in Placement's data, so a non-empty ``storage_pools`` is refused;
``parallel_per_pool``, ``with_attached_volume`` and the ``storage_pool`` and
``storage`` priorities are accepted and have nothing to act on
(doc/planner.md §9).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from placement.actionplans.errors import (
    ConsumersCannotBePlaced,
    InvalidAuditParameters,
    NodeNotFound,
)
from placement.actionplans.planners import parallel
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.efficacy import indicators
from placement.actionplans.strategies.packing import FreeCapacity, choose
from placement.actionplans.world import Consumer, Node, World

_GOAL = "hardware_maintenance"

#: A server to move, with the node it leaves and the one it was sent to (None: any).
_Target = tuple[Consumer, Node, Node | None]

#: The ``priority.compute`` keys: biggest first, or oldest first.
_SPEC_KEYS: dict[str, Callable[[Consumer], Any]] = {
    "vcpu_num": lambda c: -c.amounts.get("VCPU", 0),
    "mem_size": lambda c: -c.amounts.get("MEMORY_MB", 0),
    "disk_size": lambda c: -c.amounts.get("DISK_GB", 0),
    "created_at": lambda c: (c.created_at is None, c.created_at or datetime.min),
}


def _node(world: World, ident: str) -> Node:
    node = world.node(ident)
    if node is None:
        raise NodeNotFound(ident)
    return node


_Pair = tuple[Node, Node | None]


def _pairs_of(parameters: dict[str, Any], world: World) -> list[_Pair]:
    """Each source node with its destination (None: any), as the parameters list them."""
    return [
        (
            _node(world, pair["src_node"]),
            _node(world, pair["dst_node"]) if pair.get("dst_node") else None,
        )
        for pair in parameters.get("compute_nodes") or []
    ]


def _targets(pairs: list[_Pair]) -> list[_Target]:
    """The servers of the source nodes, in parameter then snapshot order."""
    return [
        (consumer, source, destination)
        for source, destination in pairs
        for consumer in source.consumers
        if consumer.movable and consumer.amounts
    ]


def _rank(values: list[str], key: Callable[[_Target], str | None]) -> Callable[[_Target], int]:
    """Targets whose ``key`` is listed come first, in the list's order."""
    return lambda target: values.index(k) if (k := key(target)) in values else len(values)


def _by_spec(key: Callable[[Consumer], Any]) -> Callable[[_Target], Any]:
    return lambda target: key(target[0])


def _prioritised(targets: list[_Target], priority: dict[str, Any]) -> list[_Target]:
    """``targets`` sorted by the priority's keys, the first key deciding first."""
    keys: list[Callable[[_Target], Any]] = []
    for name, value in priority.items():
        if name == "project":
            keys.append(_rank(value, lambda t: t[0].project))
        elif name == "compute_node":
            keys.append(_rank(value, lambda t: t[1].name))
        elif name == "compute":
            keys.append(_by_spec(_SPEC_KEYS[value]))
    ordered = list(targets)
    for key in reversed(keys):
        ordered.sort(key=key)
    return ordered


def _destinations(targets: list[_Target], pairs: list[_Pair], world: World) -> list[Node]:
    """Where each target goes, all fitting at once, never on a node being drained;
    ConsumersCannotBePlaced naming every server that fits nowhere (or not on its named
    destination)."""
    sources = {source.uuid: source.name for source, _ in pairs}
    open_nodes = [n for n in world.nodes if not n.disabled and n.uuid not in sources]
    free = FreeCapacity(open_nodes)
    chosen: list[Node] = []
    missing: list[str] = []
    for consumer, _, named in targets:
        candidates = open_nodes if named is None else [n for n in open_nodes if n is named]
        destination = choose(free, consumer, candidates, spread=True)
        if destination is None:
            missing.append(consumer.uuid)
        else:
            chosen.append(destination)
    if missing:
        raise ConsumersCannotBePlaced(", ".join(sources.values()), missing)
    return chosen


def _efficacy(solution: Solution, planned: int) -> None:
    counts = {
        "live_migrate_instance_count": planned,
        "planned_live_migrate_instance_count": planned,
        "cold_migrate_instance_count": 0,
        "planned_cold_migrate_instance_count": 0,
        "volume_migrate_count": 0,
        "planned_volume_migrate_count": 0,
        "volume_update_count": 0,
        "planned_volume_update_count": 0,
    }
    solution.efficacy_indicators = indicators(_GOAL, counts)
    solution.global_efficacy = [
        {
            "name": "live_instance_migrate_ratio",
            "description": "Ratio of actual live migrated instances to planned live migrate "
            "instances.",
            "unit": "%",
            "value": 100 if planned else 0,
        }
    ]


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The migrations draining ``compute_nodes``, in priority order, under the limits."""
    if parameters.get("storage_pools"):
        raise InvalidAuditParameters(
            "Invalid parameters for strategy: storage_pools is not supported: zone_migration "
            "plans the compute part only (volumes are not Placement consumers)"
        )
    pairs = _pairs_of(parameters, world)
    targets = _prioritised(_targets(pairs), parameters.get("priority") or {})
    solution = Solution(
        planner=parallel.limited(parameters["parallel_total"], parameters["parallel_per_node"])
    )
    for (consumer, source, _), destination in zip(
        targets, _destinations(targets, pairs, world), strict=True
    ):
        solution.add_migration(consumer.uuid, source.name, destination.name)
    _efficacy(solution, len(solution.actions))
    return solution


def _pairs(items: dict[str, Any]) -> dict[str, Any]:
    """An array of objects listing only ``items`` (upstream's ``additionalProperties``)."""
    return {
        "type": "array",
        "items": {"type": "object", "properties": items, "additionalProperties": False},
    }


def _text(description: str) -> dict[str, Any]:
    return {"description": description, "type": "string"}


def _limit(description: str, default: int) -> dict[str, Any]:
    return {"description": description, "type": "integer", "minimum": 0, "default": default}


def _names() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}}


_COMPUTE_NODES = _pairs(
    {
        "src_node": _text("Compute node from which instances migrate"),
        "dst_node": _text("Compute node to which instances migrate"),
    }
)
_COMPUTE_NODES["items"]["required"] = ["src_node"]

_STORAGE_POOLS = _pairs(
    {
        "src_pool": _text("Storage pool from which volumes migrate"),
        "dst_pool": _text("Storage pool to which volumes migrate"),
        "src_type": _text("Volume type from which volumes migrate"),
        "dst_type": _text("Volume type to which volumes migrate"),
    }
)
_STORAGE_POOLS["items"]["oneOf"] = [
    {"required": ["src_pool", "dst_pool"], "not": {"required": ["dst_type"]}},
    {"required": ["src_pool", "dst_type"], "not": {"required": ["dst_pool"]}},
]

STRATEGY = Strategy(
    name="zone_migration",
    display_name="Zone migration",
    goal=_GOAL,
    # Upstream's schema and defaults; what is read is doc/planner.md §9.
    parameters_spec={
        "properties": {
            "compute_nodes": _COMPUTE_NODES,
            "storage_pools": _STORAGE_POOLS,
            "parallel_total": _limit("The number of actions to be run in parallel in total", 6),
            "parallel_per_node": _limit(
                "The number of actions to be run in parallel per compute node", 2
            ),
            "parallel_per_pool": _limit(
                "The number of actions to be run in parallel per storage host", 2
            ),
            "priority": {
                "description": "List prioritizes instances and volumes",
                "type": "object",
                "properties": {
                    "project": _names(),
                    "compute_node": _names(),
                    "storage_pool": _names(),
                    "compute": {"enum": list(_SPEC_KEYS)},
                    "storage": {"enum": ["size", "created_at"]},
                },
                "additionalProperties": False,
            },
            "with_attached_volume": {
                "description": "instance migrates just after attached volumes or not",
                "type": "boolean",
                "default": False,
            },
        },
        "additionalProperties": False,
    },
    planner=None,  # the solution carries its own: parallel.limited(...)
    needs_world=True,
    solve=solve,
)
