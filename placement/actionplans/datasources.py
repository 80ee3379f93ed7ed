"""The datasources: one declaration each, what it is called and which metrics it answers.

Declared the way action types are: a pure value the options, the audit's
planning and ``strategy state`` read, while the client that asks the
datasource lives above (``placement/datasources/``). Upstream Watcher knows
four names (``gnocchi``, ``grafana``, ``prometheus``, ``aetos``); only
``prometheus`` is served here. The others are accepted in
``[watcher_datasources] datasources`` so upstream's configuration files load,
and are passed over with the reason, as upstream passes over a datasource it
cannot build.

:func:`candidates` applies upstream's choice rule (doc/planner.md §9.1): in the
configured order, a datasource is a candidate only if it answers every metric
the strategy asks for; the first candidate that answers (its client says so)
reads the audit's queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from placement.actionplans import measured
from placement.actionplans.measured import Measurements, Query


@dataclass(frozen=True)
class DatasourceDeclaration:
    """A datasource's name and, per metric it answers, the backend's own name for it."""

    name: str
    meters: Mapping[str, str]

    def missing(self, metrics: Iterable[str]) -> list[str]:
        """The metrics of ``metrics`` this datasource cannot answer, sorted."""
        return sorted(set(metrics) - set(self.meters))


PROMETHEUS: Final = DatasourceDeclaration(
    "prometheus",
    {
        measured.HOST_CPU_USAGE: "node_cpu_seconds_total",
        measured.HOST_RAM_USAGE: "node_memory_MemAvailable_bytes",
        measured.INSTANCE_CPU_USAGE: "ceilometer_cpu",
        measured.INSTANCE_RAM_USAGE: "ceilometer_memory_usage",
    },
)

#: The datasources served here, by name.
DECLARED: Final[Mapping[str, DatasourceDeclaration]] = {PROMETHEUS.name: PROMETHEUS}

#: Upstream's other names, accepted in the options and passed over with this reason.
NOT_SERVED: Final[Mapping[str, str]] = {
    "gnocchi": "gnocchi: not served here (use prometheus)",
    "grafana": "grafana: not served here (use prometheus)",
    "aetos": "aetos: not served here (Prometheus behind Keystone; use prometheus)",
}

#: Upstream's default list (every name but ``prometheus``): none of it is served here,
#: so metric strategies run only once ``prometheus`` is listed.
UPSTREAM_DEFAULT: Final = ("gnocchi", "grafana", "aetos")


#: What the object layer is given to measure with: (strategy name, queries) → readings;
#: raises :class:`~placement.actionplans.errors.NoDatasource` when no datasource answers.
Measure = Callable[[str, tuple[Query, ...]], Measurements]


class Datasource(Protocol):
    """A datasource's client for one audit run (``placement/datasources/``)."""

    declaration: DatasourceDeclaration

    def check_availability(self) -> str | None:
        """None when it answers, else why not."""

    def read(self, queries: tuple[Query, ...]) -> Measurements:
        """A reading for every query: a value, or none and why."""

    def list_metrics(self) -> set[str]:
        """The backend's metric names (``strategy state``)."""

    def close(self) -> None:
        """Release its connections (the run is over)."""


def candidates(
    names: Iterable[str], metrics: Iterable[str]
) -> tuple[list[DatasourceDeclaration], list[str]]:
    """The declarations of ``names`` (in order) that answer every metric of ``metrics``,
    and why each other name was passed over."""
    wanted = set(metrics)
    chosen: list[DatasourceDeclaration] = []
    reasons: list[str] = []
    for name in names:
        declaration = DECLARED.get(name)
        if declaration is None:
            reasons.append(NOT_SERVED.get(name, f"{name}: unknown datasource"))
        elif missing := declaration.missing(wanted):
            reasons.append(f"{name}: does not answer {', '.join(missing)}")
        else:
            chosen.append(declaration)
    return chosen, reasons
