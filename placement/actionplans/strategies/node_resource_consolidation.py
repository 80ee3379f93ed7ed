"""The ``node_resource_consolidation`` strategy: pack consumers onto as few nodes as fit.

Only enabled nodes take part. They are tried as sources from the least loaded up:
a node is released when every consumer on it fits, on the snapshot, on the
remaining nodes, each placed where it leaves the least room (tight packing),
biggest first; a node that receives consumers is not emptied later, so nothing
moves twice. A node holding a consumer that is not a server (see
:attr:`~placement.actionplans.world.Consumer.movable`: Nova's allocations for an
in-flight migration) cannot be emptied by the plan, so it is not released; its
usage still counts against what it can receive. Empty nodes are released without
moves.

``host_choice`` is upstream's: ``auto`` leaves the destination to the applier's
candidate search (Nova's scheduler, with the Nova executor) and first disables the
nodes it releases, so that search cannot fill them again; anything else writes
the chosen ``destination_node`` and, as upstream, changes no service. Unlike
upstream, ``auto`` does not enable them again at the end: consolidation is meant
to free them.
Efficacy as upstream: node count, released (emptied) nodes, migrations, and the
ratio of released nodes.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types.names import MIGRATE
from placement.actionplans.planners import node_resource_consolidation as planner
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity, choose, largest_first
from placement.actionplans.world import Node, World

#: The reason recorded when the strategy disables a node (upstream's text).
DISABLED_REASON = "Watcher node resource consolidation strategy"

_GOAL = "server_consolidation"


def _load(node: Node) -> float:
    """How full a node is: its used share of capacity, summed over classes."""
    return sum(node.usage.get(rc, 0) / cap for rc, cap in node.capacity.items() if cap > 0)


_Moves = list[tuple[str, Node]]


def _emptying(
    source: Node, targets: list[Node], trial: FreeCapacity, world: World
) -> _Moves | None:
    """Each of ``source``'s consumers with where it goes, taken from ``trial``; None if
    some consumer fits nowhere or is not a server to move (``trial`` is then
    half-spent: throw it away)."""
    if not all(consumer.movable for consumer in source.consumers):
        return None
    moves: _Moves = []
    for consumer in largest_first(source.consumers, world.nodes):
        destination = choose(trial, consumer, targets, spread=False)
        if destination is None:
            return None
        moves.append((consumer.uuid, destination))
    return moves


def _moves(world: World) -> tuple[list[Node], list[tuple[Node, _Moves]]]:
    """The nodes released empty-handed, and each emptied node with its moves."""
    enabled = tuple(node for node in world.nodes if not node.disabled)
    free = FreeCapacity(enabled)
    released: list[tuple[Node, _Moves]] = []
    receiving: set[str] = set()
    for source in sorted(enabled, key=_load):
        if source.uuid in receiving:
            continue
        gone = {node.uuid for node, _ in released} | {source.uuid}
        trial = free.copy()
        moves = _emptying(source, [n for n in enabled if n.uuid not in gone], trial, world)
        if moves is not None:
            free = trial
            receiving.update(destination.uuid for _, destination in moves)
            released.append((source, moves))
    empty = [node for node, moves in released if not moves]
    return empty, [(node, moves) for node, moves in released if moves]


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The consolidation plan for ``world``."""
    specify = parameters["host_choice"] != "auto"
    empty, emptied = _moves(world)
    solution = Solution()
    for node in [] if specify else empty + [source for source, _ in emptied]:
        solution.add_service_state(node.name, node.uuid, "disabled", DISABLED_REASON)
    migrations = 0
    for source, moves in emptied:
        for consumer, destination in moves:
            params = {"migration_type": "live", "source_node": source.name, "resource_id": consumer}
            if specify:
                params["destination_node"] = destination.name
            solution.add(MIGRATE, params)
            migrations += 1
    efficacy.consolidation(solution, len(world.nodes), len(emptied), migrations)
    return solution


STRATEGY = Strategy(
    name="node_resource_consolidation",
    display_name="Node Resource Consolidation strategy",
    goal=_GOAL,
    parameters_spec={
        "properties": {
            "host_choice": {
                "description": "The way to select the server migration destination node. The "
                "value 'auto' means that Nova scheduler selects the destination node, and "
                "'specify' means the strategy specifies the destination.",
                "type": "string",
                "default": "auto",
            }
        }
    },
    planner=planner.NAME,
    needs_world=True,
    solve=solve,
)
