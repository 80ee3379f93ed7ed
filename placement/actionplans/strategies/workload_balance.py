"""The ``workload_balance`` strategy: move one server off the most loaded node.

Upstream's "Workload Balance Migration Strategy", on the measured load of one
metric (``metrics``: ``instance_cpu_usage`` or ``instance_ram_usage``). A server's
workload is its measured CPU in cores (% of its vCPUs × vCPUs / 100) or its
measured RAM in MB; a node's is the sum of its servers', and its utilisation that
sum as a share of its capacity (VCPU or MEMORY_MB as Placement counts it).
Nodes at or above ``threshold`` % are sources, the others targets. From the most
utilised source that has one, the server moved is the biggest that leaves its
node at or above the average workload; it goes to the least utilised target with
room for it by allocation that stays below the threshold with it. At most one
migration per plan, live, as upstream.

Where we differ (doc/planner.md §9): a server without a value is left out of its
node's load and not moved, and the solution's notes say so (upstream fails the
audit with a ``KeyError`` when such a server sits on the chosen source); a move
that would leave the measured spread (the standard deviation of the nodes'
utilisation) worse is not taken; the spread before and after is reported in the
goal's optional indicators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.measured import INSTANCE_CPU_USAGE, INSTANCE_RAM_USAGE, Query
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity
from placement.actionplans.strategies.readings import GRANULARITY, Readings, of_server, servers
from placement.actionplans.world import Consumer, Node, World

#: Each metric upstream accepts, with the class a node's utilisation is a share of.
METRIC_CLASSES = {INSTANCE_CPU_USAGE: "VCPU", INSTANCE_RAM_USAGE: "MEMORY_MB"}


def _metric(parameters: dict[str, Any]) -> str:
    """The metric asked for; upstream's schema does not enforce its choice (it fails
    every query): refused here, before any plan."""
    metric = parameters["metrics"]
    if metric not in METRIC_CLASSES:
        raise InvalidAuditParameters(
            f"Invalid parameters for strategy: metrics {metric!r} is not one of "
            f"{', '.join(METRIC_CLASSES)}"
        )
    return str(metric)


def _balanced(world: World, metric: str) -> list[Node]:
    """The enabled, powered-on nodes with capacity in the metric's class."""
    resource_class = METRIC_CLASSES[metric]
    return [
        node
        for node in world.nodes
        if not node.disabled and not node.powered_off and node.capacity.get(resource_class, 0) > 0
    ]


def measures(parameters: dict[str, Any], world: World) -> tuple[Query, ...]:
    """The metric of every server on the nodes balanced, over ``period``, mean."""
    metric = _metric(parameters)
    return tuple(
        of_server(metric, consumer, parameters["period"])
        for node in _balanced(world, metric)
        for consumer in servers(node)
    )


def _deviation(values: list[float]) -> float:
    if not values:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / len(values))


@dataclass
class _Cluster:
    """The nodes balanced, each server's measured workload, each node's sum."""

    nodes: list[Node]
    resource_class: str
    workload: dict[str, float]  # server uuid -> workload (measured servers only)

    def load(self, node: Node) -> float:
        return sum(self.workload.get(consumer.uuid, 0.0) for consumer in node.consumers)

    def utilisation(self, node: Node, change: float = 0.0) -> float:
        """``node``'s workload (plus ``change``) as a % of the host's own size (its
        vCPUs or RAM before overcommit, upstream's node ``vcpus`` and ``memory``)."""
        return (self.load(node) + change) / node.totals[self.resource_class] * 100

    def spread(self, moving: tuple[Consumer, Node, Node] | None = None) -> float:
        """The standard deviation of the nodes' utilisation, were ``moving`` done."""
        change: dict[str, float] = {}
        if moving is not None:
            consumer, source, destination = moving
            change = {
                source.uuid: -self.workload[consumer.uuid],
                destination.uuid: self.workload[consumer.uuid],
            }
        return _deviation(
            [self.utilisation(node, change.get(node.uuid, 0.0)) for node in self.nodes]
        )

    def average(self) -> float:
        return sum(self.load(node) for node in self.nodes) / len(self.nodes) if self.nodes else 0.0


def _cluster(world: World, metric: str, period: float, readings: Readings) -> _Cluster:
    nodes = _balanced(world, metric)
    measured = readings.of_each(
        (consumer for node in nodes for consumer in servers(node)),
        lambda consumer: of_server(metric, consumer, period),
    )
    cpu = metric == INSTANCE_CPU_USAGE
    workload = {
        consumer.uuid: value * consumer.amounts.get("VCPU", 0) / 100 if cpu else value
        for consumer, value in measured
    }
    return _Cluster(nodes, METRIC_CLASSES[metric], workload)


def _candidate(cluster: _Cluster, source: Node) -> Consumer | None:
    """The measured server whose move leaves ``source`` closest above the average."""
    excess = cluster.load(source) - cluster.average()
    best: tuple[float, Consumer] | None = None
    for consumer in servers(source):
        if consumer.uuid not in cluster.workload:
            continue
        left = excess - cluster.workload[consumer.uuid]
        if left >= 0 and (best is None or left < best[0]):
            best = (left, consumer)
    return None if best is None else best[1]


def _destination(
    cluster: _Cluster, consumer: Consumer, source: Node, targets: list[Node], threshold: float
) -> Node | None:
    """The least utilised target with room that stays below the threshold and does
    not widen the spread."""
    free = FreeCapacity(targets)
    before = cluster.spread()
    fitting = [
        node
        for node in targets
        if free.fits(node, consumer.amounts)
        and cluster.utilisation(node, cluster.workload[consumer.uuid]) < threshold
        and cluster.spread((consumer, source, node)) <= before
    ]
    return min(fitting, key=cluster.utilisation, default=None)


def _move(cluster: _Cluster, threshold: float) -> tuple[Consumer, Node, Node] | None:
    """The one move the plan makes, if any."""
    sources = [node for node in cluster.nodes if cluster.utilisation(node) >= threshold]
    targets = [node for node in cluster.nodes if cluster.utilisation(node) < threshold]
    for source in sorted(sources, key=cluster.utilisation, reverse=True):
        consumer = _candidate(cluster, source)
        if consumer is None:
            continue
        destination = _destination(cluster, consumer, source, targets, threshold)
        if destination is not None:
            return consumer, source, destination
        return None
    return None


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """At most one migration from the most loaded node, on measured load."""
    metric = _metric(parameters)
    solution = Solution()
    cluster = _cluster(world, metric, parameters["period"], Readings(world, solution))
    before = cluster.spread()
    move = _move(cluster, parameters["threshold"])
    after = before
    if move is not None:
        consumer, source, destination = move
        after = cluster.spread(move)
        solution.add_migration(consumer.uuid, source.name, destination.name)
    instances = sum(1 for node in world.nodes for _ in servers(node))
    efficacy.balancing(solution, len(solution.actions), instances, before, after)
    return solution


STRATEGY = Strategy(
    name="workload_balance",
    display_name="Workload Balance Migration Strategy",
    goal="workload_balancing",
    # Upstream's schema and defaults (``choice`` is not a JSON-schema keyword: the
    # metric is checked by ``_metric``); ``granularity`` is accepted and not read.
    parameters_spec={
        "properties": {
            "metrics": {
                "description": "Workload balance based on metrics: cpu or ram utilization",
                "type": "string",
                "choice": [INSTANCE_CPU_USAGE, INSTANCE_RAM_USAGE],
                "default": INSTANCE_CPU_USAGE,
            },
            "threshold": {
                "description": "Workload threshold for migration - used for source and "
                "destination hosts. It is always a percentage value.",
                "type": "number",
                "default": 25.0,
            },
            "period": {
                "description": "aggregate time period of ceilometer",
                "type": "number",
                "default": 300,
            },
            "granularity": GRANULARITY,
        }
    },
    planner=weight.NAME,
    needs_world=True,
    solve=solve,
    measures=measures,
)
