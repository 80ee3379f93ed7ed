"""The ``basic`` strategy: release the least busy nodes by their measured CPU load.

Upstream's "Basic offline consolidation". Each node taking part (enabled, powered
on, holding something) is ranked by its measured ``host_cpu_usage``, busiest
first. From the least busy up, a node's servers, the busiest by their measured
``instance_cpu_usage`` first, move live to the first busier node with room for
them by allocation; a node left empty is disabled (``watcher_disabled``) and
counted released. ``migration_attempts`` (0: no limit) stops the search after that
many nodes in a row give nothing, counted as upstream counts its rounds.

Where we differ from upstream (doc/planner.md §9): a node or server whose metric
has no value is left out and the solution's notes say so, where upstream counts
it 100 % busy; a node that received servers is not emptied later in the same plan
(upstream may move a server twice); disabled nodes take no part (upstream may
move servers onto one); and every destination's room is taken from one running
account of free capacity, so the plan fits whatever order its moves run in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from placement.actionplans.measured import HOST_CPU_USAGE, INSTANCE_CPU_USAGE, Query
from placement.actionplans.planners import weight
from placement.actionplans.solution import Solution
from placement.actionplans.strategies import efficacy
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.packing import FreeCapacity
from placement.actionplans.strategies.readings import (
    AGGREGATION_METHOD,
    GRANULARITY,
    Readings,
    aggregate,
    of_node,
    of_server,
    servers,
)
from placement.actionplans.world import Consumer, Node, World

_T = TypeVar("_T")

#: The reason recorded when the strategy disables a node (upstream's text).
DISABLED_REASON = "watcher_disabled"


@dataclass(frozen=True)
class _Settings:
    """The parameters as the algorithm reads them."""

    period: float
    node_aggregate: str
    instance_aggregate: str
    attempts: float

    @classmethod
    def of(cls, parameters: dict[str, Any]) -> _Settings:
        """``aggregation_method.node`` (deprecated), when given, stands for
        ``compute_node``, as upstream reads it."""
        method = parameters["aggregation_method"]
        return cls(
            parameters["period"],
            aggregate(method["node"] or method["compute_node"]),
            aggregate(method["instance"]),
            parameters["migration_attempts"],
        )

    def of_node(self, node: Node) -> Query:
        return of_node(HOST_CPU_USAGE, node, self.period, self.node_aggregate)

    def of_server(self, consumer: Consumer) -> Query:
        return of_server(INSTANCE_CPU_USAGE, consumer, self.period, self.instance_aggregate)


def _taking_part(world: World) -> list[Node]:
    """The enabled, powered-on nodes holding something (upstream scores only those)."""
    return [
        node
        for node in world.nodes
        if not node.disabled and not node.powered_off and node.consumers
    ]


def measures(parameters: dict[str, Any], world: World) -> tuple[Query, ...]:
    """Each node's CPU load and each of its servers' CPU load."""
    settings = _Settings.of(parameters)
    queries: list[Query] = []
    for node in _taking_part(world):
        queries.append(settings.of_node(node))
        queries.extend(settings.of_server(consumer) for consumer in servers(node))
    return tuple(queries)


def _busiest_first(measured: list[tuple[_T, float]]) -> list[_T]:
    """The measured items, highest value first, ties in the given order."""
    return [item for item, _ in sorted(measured, key=lambda pair: -pair[1])]


@dataclass
class _Release:
    """The nodes ranked busiest first, emptied from the least busy up."""

    ranked: list[Node]
    settings: _Settings
    readings: Readings
    solution: Solution
    free: FreeCapacity = field(init=False)
    receiving: set[str] = field(default_factory=set)
    released: int = 0
    migrations: int = 0

    def __post_init__(self) -> None:
        self.free = FreeCapacity(self.ranked)

    def _destination(self, consumer: Consumer, index: int) -> Node | None:
        """The busiest node ranked before ``index`` with room for ``consumer``."""
        for node in self.ranked[:index]:
            if self.free.fits(node, consumer.amounts):
                self.free.take(node, consumer.amounts)
                self.receiving.add(node.uuid)
                return node
        return None

    def _empty(self, index: int) -> int:
        """Move what fits off node ``index``; disable it if that leaves it empty.
        Returns the number of servers moved."""
        source = self.ranked[index]
        moved = 0
        measured = self.readings.of_each(servers(source), self.settings.of_server)
        for consumer in _busiest_first(measured):
            destination = self._destination(consumer, index)
            if destination is not None:
                self.solution.add_migration(consumer.uuid, source.name, destination.name)
                moved += 1
        if moved == len(source.consumers):
            self.solution.add_service_state(source.name, source.uuid, "disabled", DISABLED_REASON)
            self.released += 1
        self.migrations += moved
        return moved

    def run(self) -> None:
        """Each node from the least busy up, until ``migration_attempts`` nodes in a
        row give nothing (a node emptied counts one such round, as upstream's second
        look at it does)."""
        fruitless = 0
        for index in reversed(range(len(self.ranked))):
            if self.settings.attempts and fruitless > self.settings.attempts:
                break
            moved = 0 if self.ranked[index].uuid in self.receiving else self._empty(index)
            fruitless = 1 if moved else fruitless + 1


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The consolidation plan for ``world`` and its measurements."""
    settings = _Settings.of(parameters)
    solution = Solution()
    readings = Readings(world, solution)
    ranked = _busiest_first(readings.of_each(_taking_part(world), settings.of_node))
    release = _Release(ranked, settings, readings, solution)
    release.run()
    enabled = sum(1 for node in world.nodes if not node.disabled and not node.powered_off)
    efficacy.consolidation(solution, enabled, release.released, release.migrations)
    return solution


STRATEGY = Strategy(
    name="basic",
    display_name="Basic offline consolidation",
    goal="server_consolidation",
    # Upstream's schema and defaults; ``granularity`` is accepted and not read (our
    # datasource, like upstream's Prometheus, has no use for it).
    parameters_spec={
        "properties": {
            "migration_attempts": {
                "description": "Maximum number of combinations to be tried by the strategy "
                "while searching for potential candidates. To remove the limit, set it to 0 "
                "(by default)",
                "type": "number",
                "default": 0,
            },
            "period": {
                "description": "The time interval in seconds for getting statistic aggregation",
                "type": "number",
                "default": 7200,
            },
            "granularity": GRANULARITY,
            "aggregation_method": AGGREGATION_METHOD,
        }
    },
    planner=weight.NAME,
    needs_world=True,
    solve=solve,
    measures=measures,
)
