"""The ``vm_workload_consolidation`` strategy: relieve overloaded nodes, then pack the
measured load onto as few nodes as it fits on.

Upstream's "VM Workload Consolidation Strategy", a first-fit heuristic on measured
load. A server's load is its measured CPU in cores (``instance_cpu_usage`` % × its
VCPU / 100), its measured RAM in MB and its disk by allocation (DISK_GB). A node's
CPU and RAM usage is the larger of its servers' sum and the host's own reading
(``host_cpu_usage`` % of its own vCPUs, before overcommit; ``host_ram_usage`` KiB /
1024), the
host reading moved along with each planned migration; its disk the servers' sum.

1. *Offload*: nodes ranked by CPU usage; from the busiest down, a node whose CPU
   usage exceeds its capacity sends its servers, least CPU first, to the first node
   (busiest first) that is not saturated and has room, until it is no longer over.
2. *Consolidation*: ranked again, from the least busy up, each node's servers, most
   CPU first, go to the busiest node ranked above it with room (load only moves to
   busier nodes).
3. A server moved more than once keeps one migration, first source to final
   destination; a round trip disappears.
4. A disabled destination is enabled before it receives anything; every node left
   empty is disabled (``watcher_disabled``).

Room means both the measured usage plus the server's load within capacity (VCPU,
MEMORY_MB, DISK_GB as Placement counts it) and the server's allocation within what
the node has free; a node is saturated when its free allocation is gone (RAM: 128
MB or less) or its usage reached capacity (RAM: less 128 MB).

Where we differ (doc/planner.md §9): a node takes part only when its host CPU and
RAM and every server's CPU and RAM were measured; otherwise it is left out and
noted (upstream falls back to flavor sizes, or counts all vCPUs busy). A measured 0
is a 0 (upstream reads it as missing). Free allocation is one running account that
a server leaving never refills, so the plan fits in whatever order its migrations
run; every migration is live (the snapshot has no server states); a node still
holding an allocation that is not a server (an in-flight migration's) is not empty;
the released count is the nodes disabled less those enabled, never below 0 (upstream
subtracts one per migration onto a disabled node).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from placement.actionplans.measured import (
    HOST_CPU_USAGE,
    HOST_RAM_USAGE,
    INSTANCE_CPU_USAGE,
    INSTANCE_RAM_USAGE,
    Query,
)
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity
from placement.actionplans.strategies.readings import (
    GRANULARITY,
    Readings,
    of_node,
    of_server,
    servers,
)
from placement.actionplans.world import Consumer, Node, World

#: The reason recorded when the strategy disables a node (upstream's text).
DISABLED_REASON = "watcher_disabled"

VCPU, MEMORY_MB, DISK_GB = "VCPU", "MEMORY_MB", "DISK_GB"
_CLASSES = (VCPU, MEMORY_MB, DISK_GB)

#: What upstream leaves free before it calls a node saturated, per class: 128 MB of
#: RAM is the smallest usual flavor, so less cannot take a server anyway.
_SATURATION = {VCPU: 0, MEMORY_MB: 128, DISK_GB: 0}

#: Load per class: cores, MB, GB.
_Load = dict[str, float]
_Move = tuple[Consumer, Node, Node]


def _candidates(world: World) -> list[Node]:
    """The nodes upstream considers: powered on, enabled or disabled."""
    return [node for node in world.nodes if not node.powered_off]


def _node_queries(node: Node, period: float) -> tuple[Query, Query]:
    return of_node(HOST_CPU_USAGE, node, period), of_node(HOST_RAM_USAGE, node, period)


def _server_queries(consumer: Consumer, period: float) -> tuple[Query, Query]:
    return (
        of_server(INSTANCE_CPU_USAGE, consumer, period),
        of_server(INSTANCE_RAM_USAGE, consumer, period),
    )


def measures(parameters: dict[str, Any], world: World) -> tuple[Query, ...]:
    """Each node's CPU and RAM, and each of its servers' CPU and RAM, mean over ``period``."""
    period = parameters["period"]
    queries: list[Query] = []
    for node in _candidates(world):
        queries.extend(_node_queries(node, period))
        for consumer in servers(node):
            queries.extend(_server_queries(consumer, period))
    return tuple(queries)


def _server_load(consumer: Consumer, period: float, readings: Readings) -> _Load | None:
    """``consumer``'s measured load, or None when a value is missing (noted)."""
    cpu, ram = (readings.value(query) for query in _server_queries(consumer, period))
    if cpu is None or ram is None:
        return None
    return {
        VCPU: cpu * consumer.amounts.get(VCPU, 0) / 100,
        MEMORY_MB: ram,
        DISK_GB: float(consumer.amounts.get(DISK_GB, 0)),
    }


def _read(node: Node, period: float, readings: Readings) -> tuple[_Load, dict[str, _Load]] | None:
    """``node``'s host figures and its servers' loads, or None unless every one of them
    was measured (each gap noted)."""
    cpu, ram = (readings.value(query) for query in _node_queries(node, period))
    loads: dict[str, _Load] = {}
    for consumer in servers(node):
        load = _server_load(consumer, period, readings)
        if load is not None:
            loads[consumer.uuid] = load
    if cpu is None or ram is None or len(loads) < sum(1 for _ in servers(node)):
        return None
    return {VCPU: cpu * node.totals.get(VCPU, 0) / 100, MEMORY_MB: ram / 1024}, loads


@dataclass
class _Cluster:
    """The nodes taking part, where each of their servers is as moves are planned, and
    the moves in the order planned."""

    nodes: list[Node]
    host: dict[str, _Load]  # node uuid -> host figures, moved along with migrations
    load: dict[str, _Load]  # server uuid -> its load
    placed: dict[str, list[Consumer]] = field(init=False)
    free: FreeCapacity = field(init=False)
    moves: list[_Move] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.placed = {node.uuid: list(servers(node)) for node in self.nodes}
        self.free = FreeCapacity(self.nodes)

    def usage(self, node: Node) -> _Load:
        """Per class, the larger of the servers' sum and the host's figure."""
        on = self.placed[node.uuid]
        host = self.host[node.uuid]
        return {
            rc: max(sum(self.load[c.uuid][rc] for c in on), host.get(rc, 0.0)) for rc in _CLASSES
        }

    def cpu(self, consumer: Consumer) -> float:
        return self.load[consumer.uuid][VCPU]

    def ranked(self) -> list[Node]:
        """The nodes by CPU usage, least first (ties in snapshot order)."""
        return sorted(self.nodes, key=lambda node: self.usage(node)[VCPU])

    def overloaded(self, node: Node) -> bool:
        return self.usage(node)[VCPU] > node.capacity.get(VCPU, 0)

    def fits(self, consumer: Consumer, node: Node) -> bool:
        """Whether ``node`` has room for ``consumer`` by measured load and by allocation."""
        usage, load = self.usage(node), self.load[consumer.uuid]
        return all(
            usage[rc] + load[rc] <= node.capacity.get(rc, 0) for rc in _CLASSES
        ) and self.free.fits(node, consumer.amounts)

    def saturated(self, node: Node) -> bool:
        """Whether ``node`` can take no more, in a class it has at all."""
        usage = self.usage(node)
        for rc, limit in _SATURATION.items():
            capacity = node.capacity.get(rc, 0)
            if capacity > 0 and (
                not self.free.fits(node, {rc: limit + 1}) or usage[rc] >= capacity - limit
            ):
                return True
        return False

    def move(self, consumer: Consumer, source: Node, destination: Node) -> None:
        """Plan ``consumer``'s move; the host figures follow its load."""
        self.placed[source.uuid].remove(consumer)
        self.placed[destination.uuid].append(consumer)
        self.free.take(destination, consumer.amounts)
        for rc in (VCPU, MEMORY_MB):
            self.host[source.uuid][rc] -= self.load[consumer.uuid][rc]
            self.host[destination.uuid][rc] += self.load[consumer.uuid][rc]
        self.moves.append((consumer, source, destination))

    def first_fit(
        self, consumer: Consumer, source: Node, destinations: Iterable[Node], saturated: set[str]
    ) -> Node | None:
        """The first of ``destinations`` with room for ``consumer``; those found
        saturated on the way are added to ``saturated`` and skipped from then on."""
        for destination in destinations:
            if destination.uuid in saturated:
                continue
            if destination.uuid != source.uuid and self.fits(consumer, destination):
                return destination
            if self.saturated(destination):
                saturated.add(destination.uuid)
        return None


def _measured(world: World, period: float, solution: Solution) -> _Cluster:
    """The cluster of the nodes whose every reading has a value; the others noted."""
    readings = Readings(world, solution)
    nodes: list[Node] = []
    host: dict[str, _Load] = {}
    load: dict[str, _Load] = {}
    for node in _candidates(world):
        found = _read(node, period, readings)
        if found is None:
            solution.note(f"Node {node.name} takes no part: not all of its readings have a value.")
            continue
        nodes.append(node)
        host[node.uuid], loads = found
        load.update(loads)
    return _Cluster(nodes, host, load)


def _offload(cluster: _Cluster) -> None:
    """Step 1: relieve each overloaded node, busiest first, least busy servers first."""
    ranked = cluster.ranked()
    saturated: set[str] = set()
    for node in reversed(ranked):
        if not cluster.overloaded(node):
            continue
        for consumer in sorted(cluster.placed[node.uuid], key=cluster.cpu):
            destination = cluster.first_fit(consumer, node, reversed(ranked), saturated)
            if destination is not None:
                cluster.move(consumer, node, destination)
            if not cluster.overloaded(node):
                break


def _consolidate(cluster: _Cluster) -> None:
    """Step 2: from the least busy node up, its busiest servers first, onto the
    busiest node ranked above it with room."""
    ranked = cluster.ranked()
    saturated: set[str] = set()
    for index, node in enumerate(ranked):
        for consumer in reversed(sorted(cluster.placed[node.uuid], key=cluster.cpu)):
            destination = cluster.first_fit(
                consumer, node, reversed(ranked[index + 1 :]), saturated
            )
            if destination is not None:
                cluster.move(consumer, node, destination)


def _collapsed(moves: list[_Move]) -> list[_Move]:
    """Step 3: one move per server, its first source to its final destination, in the
    order of its first move; a server back where it started does not move."""
    journeys: dict[str, _Move] = {}
    for consumer, source, destination in moves:
        start = journeys[consumer.uuid][1] if consumer.uuid in journeys else source
        journeys[consumer.uuid] = (consumer, start, destination)
    return [move for move in journeys.values() if move[1].uuid != move[2].uuid]


def _emptied(cluster: _Cluster, node: Node) -> bool:
    """Whether ``node`` ends the plan holding nothing (an allocation that is no
    server, such as an in-flight migration's, stays where it is)."""
    return not cluster.placed[node.uuid] and all(c.movable for c in node.consumers)


def _plan(cluster: _Cluster, solution: Solution) -> tuple[int, int]:
    """Steps 3 and 4 written as actions. Returns the migrations and released nodes."""
    moves = _collapsed(cluster.moves)
    enabled: set[str] = set()
    for consumer, source, destination in moves:
        if destination.disabled and destination.uuid not in enabled:
            solution.add_service_state(destination.name, destination.uuid, "enabled")
            enabled.add(destination.uuid)
        solution.add_migration(consumer.uuid, source.name, destination.name)
    disabled = 0
    for node in cluster.nodes:
        if not node.disabled and _emptied(cluster, node):
            solution.add_service_state(node.name, node.uuid, "disabled", DISABLED_REASON)
            disabled += 1
    return len(moves), max(0, disabled - len(enabled))


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The offload and consolidation plan for ``world`` and its measurements."""
    solution = Solution()
    cluster = _measured(world, parameters["period"], solution)
    _offload(cluster)
    _consolidate(cluster)
    migrations, released = _plan(cluster, solution)
    efficacy.consolidation(solution, len(_candidates(world)), released, migrations)
    return solution


STRATEGY = Strategy(
    name="vm_workload_consolidation",
    display_name="VM Workload Consolidation Strategy",
    goal="server_consolidation",
    # Upstream's schema and defaults; ``granularity`` is accepted and not read.
    parameters_spec={
        "properties": {
            "period": {
                "description": "The time interval in seconds for getting statistic aggregation",
                "type": "number",
                "default": 3600,
            },
            "granularity": GRANULARITY,
        }
    },
    planner=weight.NAME,
    needs_world=True,
    solve=solve,
    measures=measures,
)
