"""Measured load: what a metric strategy asks a datasource, and what it gets back.

Pure values between the strategies and the datasources: a strategy declares
the :class:`Query` list it needs for its parameters and the capacity snapshot
(``Strategy.measures``), the datasource of the configuration answers each
with a :class:`Reading`, and the strategy reads the answers from
``World.measurements`` when it solves. A query that cannot be answered (no
series, the datasource down) is a reading with no value and the reason, never
an invented number: the strategy skips what it cannot measure and says so.

The metric names, resources and units are upstream Watcher's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

#: Per compute node (a node's name, as Nova's service host): % of the host, 0-100.
HOST_CPU_USAGE: Final = "host_cpu_usage"
#: Per compute node: KiB used.
HOST_RAM_USAGE: Final = "host_ram_usage"
#: Per instance (its uuid): % of the instance's vCPUs, 0-100.
INSTANCE_CPU_USAGE: Final = "instance_cpu_usage"
#: Per instance: MB used.
INSTANCE_RAM_USAGE: Final = "instance_ram_usage"

#: Upstream's metrics that no datasource served here answers (upstream's Prometheus
#: datasource maps each to no series): the strategies reading them cannot run here.
HOST_OUTLET_TEMP: Final = "host_outlet_temp"
HOST_AIRFLOW: Final = "host_airflow"
HOST_INLET_TEMP: Final = "host_inlet_temp"
HOST_POWER: Final = "host_power"
INSTANCE_L3_CACHE_USAGE: Final = "instance_l3_cache_usage"

#: Which kind of resource each metric is read for.
COMPUTE_NODE: Final = "compute_node"
INSTANCE: Final = "instance"
RESOURCE_KIND: Final[Mapping[str, str]] = {
    HOST_CPU_USAGE: COMPUTE_NODE,
    HOST_RAM_USAGE: COMPUTE_NODE,
    INSTANCE_CPU_USAGE: INSTANCE,
    INSTANCE_RAM_USAGE: INSTANCE,
}

#: Upstream's aggregates (``count`` is read as ``mean``, as upstream's Prometheus does).
AGGREGATES: Final = ("mean", "max", "min", "count")


@dataclass(frozen=True)
class Query:
    """One value to read: ``metric`` of ``resource`` (a node name or an instance
    uuid) aggregated with ``aggregate`` over the last ``period`` seconds.
    ``vcpus`` is the instance's vCPU count, which ``instance_cpu_usage`` divides by."""

    metric: str
    resource: str
    period: int
    aggregate: str = "mean"
    vcpus: int = 1


@dataclass(frozen=True)
class Reading:
    """The answer to one query: a value, or none and why."""

    value: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Measurements:
    """Every answer a datasource gave for one audit run, by query."""

    readings: Mapping[Query, Reading] = field(default_factory=dict)
    #: The datasource that answered (``None``: none was asked).
    datasource: str | None = None

    def value(self, query: Query) -> float | None:
        """The value read for ``query``, or None (not asked, or no value)."""
        reading = self.readings.get(query)
        return None if reading is None else reading.value

    def missing(self) -> list[tuple[Query, str]]:
        """The queries with no value and why, in the order they were asked."""
        return [
            (query, reading.reason or "no value")
            for query, reading in self.readings.items()
            if reading.value is None
        ]


#: No measurement at all: what a strategy that reads none is given.
NONE: Final = Measurements()
