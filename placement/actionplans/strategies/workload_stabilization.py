"""The ``workload_stabilization`` strategy: spread allocations evenly over the nodes.

Upstream measures each node's CPU and RAM utilisation through a metrics service
and moves servers while the standard deviation of those loads exceeds its
thresholds. Here a node's load is its **allocated share**: VCPU (for the metric
``instance_cpu_usage``) and MEMORY_MB (``instance_ram_usage``) used by every
consumer on its tree, divided by the tree's capacity (doc/planner.md §9). So idle
servers piled on a few nodes, which a utilisation balancer never sees, are
spread; and a busy server on an empty node is not what this strategy looks at.

The nodes balanced are the enabled ones with capacity in every class measured.
While some metric's standard deviation over them exceeds its threshold, one
server moves: from the most loaded node that has one whose move lowers the
weighted deviation (the sum of each metric's deviation times its weight), the
move that lowers it most. Arrivals take free capacity, departures give none back,
so the plan fits whatever order its migrations run in; each server moves at most
once, and only servers move (``Consumer.movable``). The spread never ends worse
than it started: a move is only taken when it lowers the weighted deviation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.planners import workload_stabilization as planner
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity
from placement.actionplans.world import Consumer, Node, World

_GOAL = "workload_balancing"

#: Upstream's metric names, and the resource class whose allocated share stands in.
METRIC_CLASSES = {"instance_cpu_usage": "VCPU", "instance_ram_usage": "MEMORY_MB"}


@dataclass(frozen=True)
class _Metric:
    resource_class: str
    threshold: float
    weight: float


#: Upstream's ways of choosing destinations; all search every node here (§9).
HOST_CHOICES = ("cycle", "retry", "fullsearch")


def _metrics(parameters: dict[str, Any]) -> list[_Metric]:
    """The metrics asked for, each with its threshold and weight; a metric missing
    either, or a ``host_choice`` upstream does not know, is refused here, before any
    plan (upstream fails the audit)."""
    if parameters["host_choice"] not in HOST_CHOICES:
        raise InvalidAuditParameters(
            f"Invalid parameters for strategy: host_choice {parameters['host_choice']!r} "
            f"is not one of {', '.join(HOST_CHOICES)}"
        )
    chosen: list[_Metric] = []
    for name in dict.fromkeys(parameters["metrics"]):
        if name not in parameters["thresholds"]:
            raise InvalidAuditParameters(
                f"Invalid parameters for strategy: no threshold for {name}"
            )
        weight = parameters["weights"].get(f"{name}_weight")
        if weight is None:
            raise InvalidAuditParameters(
                f"Incorrect mapping: could not find associated weight for {name} in weight dict."
            )
        chosen.append(_Metric(METRIC_CLASSES[name], parameters["thresholds"][name], weight))
    return chosen


#: A move must lower the weighted deviation by more than this (rounding is no gain).
_GAIN = 1e-12


class _Loads:
    """Each balanced node's allocated share per metric, as moves are planned.

    Per metric it keeps the sum of the shares and of their squares, so the deviation
    after a candidate move costs a few operations however many nodes there are.
    """

    def __init__(self, nodes: list[Node], metrics: list[_Metric]) -> None:
        self.metrics = metrics
        self.share = {
            node.uuid: [
                node.usage.get(m.resource_class, 0) / node.capacity[m.resource_class]
                for m in metrics
            ]
            for node in nodes
        }
        self._capacity = {
            node.uuid: [node.capacity[m.resource_class] for m in metrics] for node in nodes
        }
        self._sums: list[tuple[float, float]] = []
        self._total()

    def _total(self) -> None:
        """Sum the shares and their squares again (after a move: no drift builds up)."""
        self._sums = [
            (
                sum(shares[i] for shares in self.share.values()),
                sum(shares[i] ** 2 for shares in self.share.values()),
            )
            for i in range(len(self.metrics))
        ]

    def _deviation(self, total: float, squares: float) -> float:
        count = len(self.share)
        return math.sqrt(max(squares / count - (total / count) ** 2, 0.0)) if count else 0.0

    def deviations(self) -> list[float]:
        """The population standard deviation of each metric's shares (0 for no node)."""
        return [self._deviation(total, squares) for total, squares in self._sums]

    def weighted(self) -> float:
        return sum(d * m.weight for d, m in zip(self.deviations(), self.metrics, strict=True))

    def balanced(self) -> bool:
        return all(d <= m.threshold for d, m in zip(self.deviations(), self.metrics, strict=True))

    def load(self, node: Node) -> float:
        return sum(s * m.weight for s, m in zip(self.share[node.uuid], self.metrics, strict=True))

    def _shifted(
        self, consumer: Consumer, source: Node, destination: Node, i: int
    ) -> tuple[tuple[float, float], tuple[float, float]]:
        """Metric ``i``'s share of source and destination before and after the move."""
        amount = consumer.amounts.get(self.metrics[i].resource_class, 0)
        before = self.share[source.uuid][i], self.share[destination.uuid][i]
        after = (
            before[0] - amount / self._capacity[source.uuid][i],
            before[1] + amount / self._capacity[destination.uuid][i],
        )
        return before, after

    def weighted_after(self, consumer: Consumer, source: Node, destination: Node) -> float:
        """The weighted deviation were ``consumer`` to move (nothing is changed)."""
        result = 0.0
        for i, metric in enumerate(self.metrics):
            (s0, d0), (s1, d1) = self._shifted(consumer, source, destination, i)
            total, squares = self._sums[i]
            result += metric.weight * self._deviation(
                total - s0 - d0 + s1 + d1, squares - s0**2 - d0**2 + s1**2 + d1**2
            )
        return result

    def move(self, consumer: Consumer, source: Node, destination: Node) -> None:
        for i in range(len(self.metrics)):
            _, (s1, d1) = self._shifted(consumer, source, destination, i)
            self.share[source.uuid][i], self.share[destination.uuid][i] = s1, d1
        self._total()


_Move = tuple[Consumer, Node, Node]


class _Balancer:
    """The moves that bring the nodes within the thresholds, one at a time."""

    def __init__(self, nodes: list[Node], metrics: list[_Metric]) -> None:
        self.nodes = nodes
        self.loads = _Loads(nodes, metrics)
        self.free = FreeCapacity(nodes)
        self.moved: set[str] = set()

    def _best_from(self, source: Node, current: float) -> tuple[float, _Move] | None:
        """The move off ``source`` that lowers the weighted deviation most, if any does."""
        best: tuple[float, _Move] | None = None
        tried: set[tuple[tuple[str, int], ...]] = set()
        for consumer in source.consumers:
            size = tuple(sorted(consumer.amounts.items()))
            if not consumer.movable or consumer.uuid in self.moved or size in tried:
                continue
            tried.add(size)  # servers of one size on one node are the same move
            for destination in self.nodes:
                if destination is source or not self.free.fits(destination, consumer.amounts):
                    continue
                after = self.loads.weighted_after(consumer, source, destination)
                if after < current - _GAIN and (best is None or after < best[0]):
                    best = (after, (consumer, source, destination))
        return best

    def step(self) -> _Move | None:
        """The next move, taken; None when none lowers the weighted deviation."""
        current = self.loads.weighted()
        for source in sorted(self.nodes, key=self.loads.load, reverse=True):
            found = self._best_from(source, current)
            if found is not None:
                consumer, source, destination = found[1]
                self.loads.move(consumer, source, destination)
                self.free.take(destination, consumer.amounts)
                self.moved.add(consumer.uuid)
                return found[1]
        return None


def _balanced_nodes(world: World, metrics: list[_Metric]) -> list[Node]:
    """The enabled nodes with capacity in every class measured (a powered-off node has
    none)."""
    return [
        node
        for node in world.nodes
        if not node.disabled and all(node.capacity.get(m.resource_class, 0) > 0 for m in metrics)
    ]


def _efficacy(solution: Solution, balancer: _Balancer, before: float) -> None:
    instances = sum(1 for node in balancer.nodes for c in node.consumers if c.movable)
    efficacy.balancing(solution, len(balancer.moved), instances, before, balancer.loads.weighted())


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """Migrations that bring the allocated shares within the thresholds, if any do."""
    metrics = _metrics(parameters)
    balancer = _Balancer(_balanced_nodes(world, metrics), metrics)
    solution = Solution()
    before = balancer.loads.weighted()
    while not balancer.loads.balanced():
        move = balancer.step()
        if move is None:
            break
        consumer, source, destination = move
        solution.add_migration(consumer.uuid, source.name, destination.name)
    _efficacy(solution, balancer, before)
    return solution


#: A threshold or a weight: upstream's bounds.
_SHARE = {"type": "number", "minimum": 0, "maximum": 1}

STRATEGY = Strategy(
    name="workload_stabilization",
    display_name="Workload stabilization",
    goal=_GOAL,
    # Upstream's schema and defaults, unchanged; what is read is doc/planner.md §9.
    parameters_spec={
        "properties": {
            "metrics": {
                "description": "Metrics used as rates of cluster loads.",
                "type": "array",
                "items": {"type": "string", "enum": sorted(METRIC_CLASSES)},
                "default": ["instance_cpu_usage"],
            },
            "thresholds": {
                "description": "Dict where key is a metric and value is a trigger value.",
                "type": "object",
                "properties": {name: dict(_SHARE) for name in sorted(METRIC_CLASSES)},
                "default": {"instance_cpu_usage": 0.1, "instance_ram_usage": 0.1},
            },
            "weights": {
                "description": "These weights used to calculate common standard deviation. "
                "Name of weight contains meter name and _weight suffix.",
                "type": "object",
                "properties": {f"{name}_weight": dict(_SHARE) for name in sorted(METRIC_CLASSES)},
                "default": {"instance_cpu_usage_weight": 1.0, "instance_ram_usage_weight": 1.0},
            },
            "instance_metrics": {
                "description": "Mapping to get hardware statistics using instance metrics",
                "type": "object",
                "default": {
                    "instance_cpu_usage": "host_cpu_usage",
                    "instance_ram_usage": "host_ram_usage",
                },
            },
            "host_choice": {
                "description": "Method of host's choice. There are cycle, retry and fullsearch "
                "methods. Cycle will iterate hosts in cycle. Retry will get some hosts random "
                "(count defined in retry_count option). Fullsearch will return each host from "
                "list.",
                "type": "string",
                "default": "retry",
            },
            "retry_count": {
                "description": "Count of random returned hosts",
                "type": "number",
                "minimum": 1,
                "default": 1,
            },
            "periods": {
                "description": "These periods are used to get statistic aggregation for "
                "instance and host metrics. The period is simply a repeating interval of time "
                "into which the samples are grouped for aggregation. Watcher uses only the last "
                "period of all received ones.",
                "type": "object",
                "properties": {
                    "instance": {"type": "integer", "minimum": 0},
                    "compute_node": {"type": "integer", "minimum": 0},
                    "node": {"type": "integer", "minimum": 0, "default": 0},
                },
                "default": {"instance": 720, "compute_node": 600, "node": 0},
            },
            "aggregation_method": {
                "description": "Function used to aggregate multiple measures into an aggregate. "
                "For example, the min aggregation method will aggregate the values of different "
                "measures to the minimum value of all the measures in the time range.",
                "type": "object",
                "properties": {
                    "instance": {"type": "string", "default": "mean"},
                    "compute_node": {"type": "string", "default": "mean"},
                    "node": {"type": "string", "default": ""},
                },
                "default": {"instance": "mean", "compute_node": "mean", "node": ""},
            },
            "granularity": {
                "description": "The time between two measures in an aggregated timeseries of a "
                "metric.",
                "type": "number",
                "minimum": 0,
                "default": 300,
            },
        }
    },
    planner=planner.NAME,
    needs_world=True,
    solve=solve,
)
