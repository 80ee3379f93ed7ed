"""The ``workload_stabilization`` strategy: even out the nodes' load.

Upstream measures each node's CPU and RAM utilisation through a datasource and
moves servers while the standard deviation of those loads exceeds its
thresholds. Here the load is **measured when a datasource is configured**
(``measures``, doc/planner.md §9): per metric the host reading that
``instance_metrics`` maps it to (``host_cpu_usage`` % of the host,
``host_ram_usage`` KiB) over ``periods.compute_node`` with
``aggregation_method.compute_node``, and each server's reading over
``periods.instance`` / ``aggregation_method.instance``; a node's share is its
busy cores (RAM in MB) over its VCPU (MEMORY_MB) capacity, and a server moving
carries its busy cores (MB) along. A node or server without a value is left out,
and noted. With **no datasource configured** (``measures_optional``) the load is
the **allocated share**: VCPU and MEMORY_MB held on the node's tree over its
capacity, and the solution notes that it balanced by allocation.

The nodes balanced are the enabled ones with capacity in every class measured.
While some metric's standard deviation over them exceeds its threshold, one
server moves: from the most loaded node that has one whose move lowers the
weighted deviation (the sum of each metric's deviation times its weight), the
move that lowers it most. Arrivals take free capacity by allocation, departures
give none back, so the plan fits whatever order its migrations run in and never
overcommits; each server moves at most once (upstream's ``fullsearch`` may plan
one twice), and only servers move (``Consumer.movable``). The spread never ends
worse than it started: a move is only taken when it lowers the weighted deviation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.measured import (
    HOST_CPU_USAGE,
    HOST_RAM_USAGE,
    INSTANCE_CPU_USAGE,
    INSTANCE_RAM_USAGE,
    Query,
)
from placement.actionplans.planners import workload_stabilization as planner
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity
from placement.actionplans.strategies.readings import (
    AGGREGATION_METHOD,
    Readings,
    aggregate,
    of_node,
    of_server,
    servers,
)
from placement.actionplans.world import Consumer, Node, World

_GOAL = "workload_balancing"

#: Upstream's metric names, and the resource class a node's load is a share of.
METRIC_CLASSES = {INSTANCE_CPU_USAGE: "VCPU", INSTANCE_RAM_USAGE: "MEMORY_MB"}
#: The host metric that measures each instance metric on a node (``instance_metrics``
#: may name only this one: another would mix units).
HOST_METRICS = {INSTANCE_CPU_USAGE: HOST_CPU_USAGE, INSTANCE_RAM_USAGE: HOST_RAM_USAGE}

#: The note of a solution balanced without measurements.
BY_ALLOCATION = "No datasource configured: balanced by allocated share."


@dataclass(frozen=True)
class _Metric:
    name: str
    resource_class: str
    threshold: float
    weight: float


#: Upstream's ways of choosing destinations; all search every node here (§9).
HOST_CHOICES = ("cycle", "retry", "fullsearch")


def _metric(parameters: dict[str, Any], name: str) -> _Metric:
    """``name`` with its threshold and weight, and its host metric checked."""
    if name not in parameters["thresholds"]:
        raise InvalidAuditParameters(f"Invalid parameters for strategy: no threshold for {name}")
    weight = parameters["weights"].get(f"{name}_weight")
    if weight is None:
        raise InvalidAuditParameters(
            f"Incorrect mapping: could not find associated weight for {name} in weight dict."
        )
    host = parameters["instance_metrics"].get(name)
    if host != HOST_METRICS[name]:
        raise InvalidAuditParameters(
            f"Invalid parameters for strategy: instance_metrics must map {name} to "
            f"{HOST_METRICS[name]}, not {host!r}"
        )
    return _Metric(name, METRIC_CLASSES[name], parameters["thresholds"][name], weight)


def _metrics(parameters: dict[str, Any]) -> list[_Metric]:
    """The metrics asked for, each with its threshold and weight; a metric missing
    either, or a ``host_choice`` upstream does not know, is refused here, before any
    plan (upstream fails the audit)."""
    if parameters["host_choice"] not in HOST_CHOICES:
        raise InvalidAuditParameters(
            f"Invalid parameters for strategy: host_choice {parameters['host_choice']!r} "
            f"is not one of {', '.join(HOST_CHOICES)}"
        )
    return [_metric(parameters, name) for name in dict.fromkeys(parameters["metrics"])]


@dataclass(frozen=True)
class _Asked:
    """How readings are asked: per node and per server, the window and the aggregate
    (a non-empty ``node`` entry stands for ``compute_node``, as upstream)."""

    node_period: int
    node_aggregate: str
    server_period: int
    server_aggregate: str

    @classmethod
    def of(cls, parameters: dict[str, Any]) -> _Asked:
        periods, methods = parameters["periods"], parameters["aggregation_method"]
        return cls(
            periods.get("node") or periods["compute_node"],
            aggregate(methods.get("node") or methods["compute_node"]),
            periods["instance"],
            aggregate(methods["instance"]),
        )

    def node(self, metric: _Metric, node: Node) -> Query:
        return of_node(HOST_METRICS[metric.name], node, self.node_period, self.node_aggregate)

    def server(self, metric: _Metric, consumer: Consumer) -> Query:
        return of_server(metric.name, consumer, self.server_period, self.server_aggregate)


def _balanced_nodes(world: World, metrics: list[_Metric]) -> list[Node]:
    """The enabled nodes with capacity in every class measured (a powered-off node has
    none)."""
    return [
        node
        for node in world.nodes
        if not node.disabled and all(node.capacity.get(m.resource_class, 0) > 0 for m in metrics)
    ]


def measures(parameters: dict[str, Any], world: World) -> tuple[Query, ...]:
    """Each metric's host reading of every node balanced, and its reading of every
    server on them."""
    metrics = _metrics(parameters)
    asked = _Asked.of(parameters)
    nodes = _balanced_nodes(world, metrics)
    of_nodes = (asked.node(m, node) for node in nodes for m in metrics)
    of_servers = (
        asked.server(m, consumer) for node in nodes for consumer in servers(node) for m in metrics
    )
    return (*of_nodes, *of_servers)


@dataclass(frozen=True)
class _Load:
    """What is balanced: the nodes, each one's use per metric in the unit of its
    capacity (cores, MB), and each server that may move with its load in that unit."""

    nodes: list[Node]
    used: dict[str, list[float]]
    moving: dict[str, list[float]]


def _allocated(world: World, metrics: list[_Metric]) -> _Load:
    """The load by allocation: what the tree's consumers hold, what a server holds."""
    nodes = _balanced_nodes(world, metrics)
    used = {
        node.uuid: [float(node.usage.get(m.resource_class, 0)) for m in metrics] for node in nodes
    }
    moving = {
        consumer.uuid: [float(consumer.amounts.get(m.resource_class, 0)) for m in metrics]
        for node in nodes
        for consumer in servers(node)
    }
    return _Load(nodes, used, moving)


def _host_use(metric: _Metric, value: float, node: Node) -> float:
    """A host reading in its class's unit: % of the host as busy cores of its own
    vCPUs (the hypervisor's, before overcommit), KiB as MB."""
    if metric.resource_class == "VCPU":
        return value * node.totals.get("VCPU", 0) / 100
    return value / 1024


def _server_load(metric: _Metric, value: float, consumer: Consumer) -> float:
    """A server reading in its class's unit: % of its vCPUs as busy cores (at least one
    vCPU, as it was queried), MB as is."""
    if metric.resource_class == "VCPU":
        return value * max(1, consumer.amounts.get("VCPU", 0)) / 100
    return value


def _read(readings: Readings, queries: list[Query]) -> list[float] | None:
    """Every query's value (each missing one noted), or None when any is missing."""
    values = [readings.value(query) for query in queries]
    return None if None in values else [v for v in values if v is not None]


def _measured(world: World, metrics: list[_Metric], asked: _Asked, readings: Readings) -> _Load:
    """The measured load of the nodes and servers with a value for every metric."""
    nodes: list[Node] = []
    used: dict[str, list[float]] = {}
    moving: dict[str, list[float]] = {}
    for node in _balanced_nodes(world, metrics):
        values = _read(readings, [asked.node(m, node) for m in metrics])
        if values is None:
            continue
        nodes.append(node)
        used[node.uuid] = [_host_use(m, v, node) for m, v in zip(metrics, values, strict=True)]
        for consumer in servers(node):
            loads = _read(readings, [asked.server(m, consumer) for m in metrics])
            if loads is not None:
                moving[consumer.uuid] = [
                    _server_load(m, v, consumer) for m, v in zip(metrics, loads, strict=True)
                ]
    return _Load(nodes, used, moving)


#: A move must lower the weighted deviation by more than this (rounding is no gain).
_GAIN = 1e-12


class _Loads:
    """Each balanced node's share per metric (use over the host's own size: its vCPUs,
    its RAM, before overcommit, as upstream normalises), as moves are planned.

    Per metric it keeps the sum of the shares and of their squares, so the deviation
    after a candidate move costs a few operations however many nodes there are.
    """

    def __init__(self, load: _Load, metrics: list[_Metric]) -> None:
        self.metrics = metrics
        self.moving = load.moving
        self._capacity = {
            node.uuid: [node.totals[m.resource_class] for m in metrics] for node in load.nodes
        }
        self.share = {
            uuid: [use / cap for use, cap in zip(used, self._capacity[uuid], strict=True)]
            for uuid, used in load.used.items()
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
        amount = self.moving[consumer.uuid][i]
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

    def __init__(self, load: _Load, metrics: list[_Metric]) -> None:
        self.nodes = load.nodes
        self.loads = _Loads(load, metrics)
        self.free = FreeCapacity(load.nodes)
        self.moved: set[str] = set()

    def _candidates(self, source: Node) -> list[Consumer]:
        """``source``'s servers that may move, one of each kind (servers holding and
        carrying the same are the same move)."""
        kinds: dict[tuple[Any, ...], Consumer] = {}
        for consumer in source.consumers:
            if consumer.uuid in self.loads.moving and consumer.uuid not in self.moved:
                kind = (tuple(sorted(consumer.amounts.items())), *self.loads.moving[consumer.uuid])
                kinds.setdefault(kind, consumer)
        return list(kinds.values())

    def _best_from(self, source: Node, current: float) -> tuple[float, _Move] | None:
        """The move off ``source`` that lowers the weighted deviation most, if any does."""
        best: tuple[float, _Move] | None = None
        for consumer in self._candidates(source):
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


def _efficacy(solution: Solution, balancer: _Balancer, before: float) -> None:
    instances = len(balancer.loads.moving)
    efficacy.balancing(solution, len(balancer.moved), instances, before, balancer.loads.weighted())


def _load(parameters: dict[str, Any], world: World, solution: Solution) -> _Load:
    """The measured load when a datasource answered, else the allocated share (noted)."""
    metrics = _metrics(parameters)
    asked = _Asked.of(parameters)  # checked even when nothing is asked
    if world.measurements.datasource is None:
        solution.note(BY_ALLOCATION)
        return _allocated(world, metrics)
    return _measured(world, metrics, asked, Readings(world, solution))


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """Migrations that bring the nodes' loads within the thresholds, if any do."""
    metrics = _metrics(parameters)
    solution = Solution()
    balancer = _Balancer(_load(parameters, world, solution), metrics)
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
            "aggregation_method": AGGREGATION_METHOD,
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
    measures=measures,
    measures_optional=True,
)
