"""What the metric strategies share: the queries they ask and how they read the answers.

A metric strategy declares its queries (``Strategy.measures``) and, when it solves,
reads the same queries from ``World.measurements``. A query without a value is
never replaced by a guess (upstream counts a silent host as 100 % busy, or falls
back to flavor sizes): the strategy leaves that node or server out, and the
solution says so in a note naming the metric, the resource and the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.measured import AGGREGATES, INSTANCE, RESOURCE_KIND, Query
from placement.actionplans.solution import Solution
from placement.actionplans.world import Consumer, Node, World

#: Upstream's ``granularity`` parameter of the metric strategies: the spacing of
#: samples Gnocchi aggregates; accepted, and read by no datasource here (nor by
#: upstream's Prometheus).
GRANULARITY: Final[dict[str, Any]] = {
    "description": "The time between two measures in an aggregated timeseries of a metric.",
    "type": "number",
    "default": 300,
}

#: Upstream's ``aggregation_method`` parameter: the aggregate per kind of resource
#: (``node`` the deprecated name of ``compute_node``).
AGGREGATION_METHOD: Final[dict[str, Any]] = {
    "description": "Function used to aggregate multiple measures into an aggregate. For "
    "example, the min aggregation method will aggregate the values of different measures to "
    "the minimum value of all the measures in the time range.",
    "type": "object",
    "properties": {
        "instance": {"type": "string", "default": "mean"},
        "compute_node": {"type": "string", "default": "mean"},
        "node": {"type": "string", "default": ""},
    },
    "default": {"instance": "mean", "compute_node": "mean", "node": ""},
}


def period(seconds: float) -> int:
    """A period parameter (a JSON number) as whole seconds: a datasource's window."""
    return int(seconds)


def aggregate(name: str) -> str:
    """An aggregate parameter, refused before any query unless it is one of upstream's
    (upstream's Prometheus fails the audit on any other)."""
    if name not in AGGREGATES:
        raise InvalidAuditParameters(
            f"Invalid parameters for strategy: aggregate {name!r} is not one of "
            f"{', '.join(AGGREGATES)}"
        )
    return name


def of_node(metric: str, node: Node, seconds: float, aggregate: str = "mean") -> Query:
    """``metric`` of ``node``, asked by its name (upstream's Nova service host)."""
    return Query(metric, node.name, period(seconds), aggregate)


def of_server(metric: str, consumer: Consumer, seconds: float, aggregate: str = "mean") -> Query:
    """``metric`` of the server ``consumer``, with its vCPU count (at least 1, as upstream
    divides by it)."""
    vcpus = max(1, consumer.amounts.get("VCPU", 0))
    return Query(metric, consumer.uuid, period(seconds), aggregate, vcpus)


def servers(node: Node) -> Iterable[Consumer]:
    """The consumers of ``node`` a strategy may measure and move (see
    :attr:`~placement.actionplans.world.Consumer.movable`)."""
    return (consumer for consumer in node.consumers if consumer.movable)


def _what(query: Query) -> str:
    kind = "server" if RESOURCE_KIND.get(query.metric) == INSTANCE else "node"
    return f"{query.metric} of {kind} {query.resource}"


_T = TypeVar("_T")


class Readings:
    """``world``'s measurements as one strategy run reads them; every query found
    without a value is noted on ``solution``, once."""

    def __init__(self, world: World, solution: Solution) -> None:
        self._measurements = world.measurements
        self._solution = solution

    def value(self, query: Query) -> float | None:
        """The value measured for ``query``, or None (noted: the caller skips it)."""
        reading = self._measurements.readings.get(query)
        if reading is not None and reading.value is not None:
            return reading.value
        reason = "not measured" if reading is None else reading.reason or "no value"
        self._solution.note(f"No value for {_what(query)} ({reason}): left out of the plan.")
        return None

    def of_each(self, items: Iterable[_T], query: Callable[[_T], Query]) -> list[tuple[_T, float]]:
        """Each of ``items`` with its value for ``query(item)``, in order; those without
        one are left out (and noted)."""
        found = ((item, self.value(query(item))) for item in items)
        return [(item, value) for item, value in found if value is not None]
