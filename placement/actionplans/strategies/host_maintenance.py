"""The ``host_maintenance`` strategy: empty one node so it can be serviced.

The node is disabled first, so no scheduler puts anything new there; then every
consumer on its tree moves. With a ``backup_node`` that has room for all of them
(and it is enabled first if it was disabled), they all go there; a backup without
room is ignored, as upstream does. Otherwise each consumer gets an explicit
``destination_node`` chosen on the snapshot, biggest consumers first, spreading
the load, and taking each placement's amounts from the free capacity so the
whole plan fits at once. If some consumer fits nowhere, no plan is made and the
error names every such consumer. With both ``disable_*_migration`` flags set,
consumers are stopped instead of moved. Only servers move or stop (see
:attr:`~placement.actionplans.world.Consumer.movable`): what Nova holds for an
in-flight migration stays, its usage still counted on the node.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import STOP
from placement.actionplans.errors import ConsumersCannotBePlaced, NodeNotFound
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity, choose, largest_first
from placement.actionplans.world import Consumer, Node, World, fits

#: The reason recorded when the strategy disables a node (upstream's text).
DISABLED_REASON = "watcher_maintaining"


def _node(world: World, ident: str) -> Node:
    node = world.node(ident)
    if node is None:
        raise NodeNotFound(ident)
    return node


def _totals(consumers: list[Consumer]) -> dict[str, int]:
    summed: dict[str, int] = {}
    for consumer in consumers:
        for rc, amount in consumer.amounts.items():
            summed[rc] = summed.get(rc, 0) + amount
    return summed


def _destinations(world: World, node: Node, moving: list[Consumer]) -> dict[str, str]:
    """Consumer uuid → destination name, all placements fitting together."""
    others = tuple(n for n in world.nodes if n.uuid != node.uuid and not n.disabled)
    free = FreeCapacity(others)
    chosen: dict[str, str] = {}
    for consumer in largest_first(moving, world.nodes):
        destination = choose(free, consumer, others, spread=True)
        if destination is not None:
            chosen[consumer.uuid] = destination.name
    missing = [c.uuid for c in moving if c.uuid not in chosen]
    if missing:
        raise ConsumersCannotBePlaced(node.name, missing)
    return chosen


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The maintenance plan for ``parameters["maintenance_node"]`` on ``world``."""
    node = _node(world, parameters["maintenance_node"])
    backup = None
    if parameters.get("backup_node") is not None:
        backup = _node(world, parameters["backup_node"])
    moving = [consumer for consumer in node.consumers if consumer.amounts and consumer.movable]
    stop = parameters["disable_live_migration"] and parameters["disable_cold_migration"]
    use_backup = (
        backup is not None
        and backup.uuid != node.uuid
        and not stop
        and fits(_totals(moving), backup.free())
    )
    solution = Solution()
    if use_backup and backup is not None and backup.disabled:
        solution.add_service_state(backup.name, backup.uuid, "enabled")
    solution.add_service_state(node.name, node.uuid, "disabled", DISABLED_REASON)
    if stop:
        for consumer in moving:
            solution.add(STOP, {"resource_id": consumer.uuid})
        return solution
    if use_backup and backup is not None:
        destinations = {consumer.uuid: backup.name for consumer in moving}
    else:
        destinations = _destinations(world, node, moving)
    migration_type = "cold" if parameters["disable_live_migration"] else "live"
    for consumer in moving:
        solution.add_migration(
            consumer.uuid, node.name, destinations[consumer.uuid], migration_type
        )
    return solution


STRATEGY = Strategy(
    name="host_maintenance",
    display_name="Host Maintenance Strategy",
    goal="cluster_maintaining",
    parameters_spec={
        "properties": {
            "maintenance_node": {
                "description": "The name of the compute node which need maintenance",
                "type": "string",
            },
            "backup_node": {
                "description": "The name of the compute node which will backup the maintenance "
                "node.",
                "type": "string",
            },
            "disable_live_migration": {
                "description": "Disable live migration in maintenance. If True, active instances "
                "will be cold migrated if `disable_cold_migration` is not set, otherwise they "
                "will be stopped.",
                "type": "boolean",
                "default": False,
            },
            "disable_cold_migration": {
                "description": "Disable cold migration in maintenance. If True, non-active "
                "instances will not be cold migrated.",
                "type": "boolean",
                "default": False,
            },
        },
        "required": ["maintenance_node"],
    },
    planner=weight.NAME,
    needs_world=True,
    solve=solve,
)
