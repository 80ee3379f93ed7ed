"""The PromQL upstream Watcher's Prometheus datasource builds for each metric.

Pure text: the label names come from ``[prometheus_client]``, a host's label
value from the scrape targets (``prometheus.py``), an instance's is its uuid.
The queries are upstream's, character for character where it matters to the
result: the aggregate across CPUs (not over time) for host CPU, ``MemTotal``
as an instant selector for host RAM, nanoseconds to seconds by ``10e+8`` and
the cap at 100 % for instance CPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from placement.actionplans import measured
from placement.actionplans.measured import Query

#: Watcher's aggregate → PromQL's (upstream reads ``count`` as ``avg``).
AGGREGATES: Final[Mapping[str, str]] = {"mean": "avg", "max": "max", "min": "min", "count": "avg"}

#: For host metrics the busiest is the least idle (or available): upstream inverts
#: ``max`` and ``min`` before building the query.
_HOST_INVERSE: Final[Mapping[str, str]] = {"max": "min", "min": "max"}


class CannotBuild(ValueError):
    """A query no PromQL answers (an unknown metric or aggregate); the message says which."""


def aggregate(query: Query) -> str:
    """The PromQL aggregate of ``query``, inverted for host metrics."""
    name = query.aggregate
    if measured.RESOURCE_KIND.get(query.metric) == measured.COMPUTE_NODE:
        name = _HOST_INVERSE.get(name, name)
    if name not in AGGREGATES:
        raise CannotBuild(f"unknown aggregate {query.aggregate!r}")
    return AGGREGATES[name]


def build(query: Query, label: str, fqdn_label: str, uuid_label: str) -> str:
    """The PromQL of ``query``, whose resource's label value is ``label``."""
    agg = aggregate(query)
    period = f"{int(query.period)}s"
    if query.metric == measured.HOST_CPU_USAGE:
        idle = f"node_cpu_seconds_total{{mode='idle',{fqdn_label}='{label}'}}"
        return f"100 - ({agg} by ({fqdn_label})(rate({idle}[{period}])) * 100)"
    if query.metric == measured.HOST_RAM_USAGE:
        total = f"node_memory_MemTotal_bytes{{{fqdn_label}='{label}'}}"
        available = f"node_memory_MemAvailable_bytes{{{fqdn_label}='{label}'}}"
        return f"({total} - {agg}_over_time({available}[{period}])) / 1024"
    if query.metric == measured.INSTANCE_CPU_USAGE:
        vcpus = query.vcpus if query.vcpus > 0 else 1
        rate = f"rate(ceilometer_cpu{{{uuid_label}='{label}'}}[{period}])"
        return f"clamp_max(({agg} by ({uuid_label})({rate})/10e+8) *(100/{vcpus}), 100)"
    if query.metric == measured.INSTANCE_RAM_USAGE:
        return f"{agg}_over_time(ceilometer_memory_usage{{{uuid_label}='{label}'}}[{period}])"
    raise CannotBuild(f"prometheus does not answer {query.metric}")
