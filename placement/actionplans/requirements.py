"""What ``strategy state`` reports: what a strategy needs and whether it has it.

Upstream asks its decision engine for the strategy's datasource (Gnocchi,
Prometheus…), the metrics it reads from it and the cluster data models it
needs, then adds the strategy's name. Here every strategy reads Placement's own
tables, which are there whenever the API answers: a strategy that reads
capacity has the ``Placement`` datasource and the compute model, available;
one that reads none (``dummy``, ``actuator``) has no datasource. A strategy
that reads measured load (it declares ``measures``) reports its metric
datasource instead, as the caller found it: the one chosen and, per meter,
whether the datasource holds it (upstream's ``{<meter>: available}``), or why
none answers; or, for a strategy that can do without measurements
(``workload_stabilization``) when none is configured, that it reads
Placement and balances by allocated share. A strategy upstream serves that
cannot run here (it declares ``cannot_run``) says why in its datasource row.
No storage or bare-metal model exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from placement.actionplans.strategies import (
    STRATEGIES_BY_NAME,
    cannot_run,
    measures_optional,
    needs_world,
)

NO_DATASOURCE = "Datasource is not presented for this strategy"
#: What a strategy that can do without measurements reads when no datasource is configured.
BY_ALLOCATION = "Placement: available (no datasource configured: balancing by allocated share)"
#: The datasource row of a strategy that cannot run here, before its reason.
CANNOT_RUN = "Not available in this service"


@dataclass(frozen=True)
class DatasourceState:
    """A metric strategy's datasource as found: its row's text and the metric rows;
    ``configured`` False when no datasource it could use is configured at all."""

    state: str
    metrics: list[dict[str, str]] = field(default_factory=list)
    configured: bool = True


def measures(strategy_name: str) -> bool:
    """Whether ``strategy_name`` reads measured load (declares ``measures``)."""
    strategy = STRATEGIES_BY_NAME.get(strategy_name)
    return strategy is not None and strategy.measures is not None


def strategy_state(
    strategy_name: str, datasource: DatasourceState | None = None
) -> list[dict[str, Any]]:
    """Upstream's four rows (datasource, metrics, data models, name) for ``strategy_name``;
    ``datasource`` is what was found for a strategy that measures."""
    if datasource is not None and not datasource.configured and measures_optional(strategy_name):
        datasource = DatasourceState(BY_ALLOCATION)
    if datasource is None:
        datasource = DatasourceState(_own_datasource(strategy_name))
    return [
        _row("Datasource", datasource.state, True),
        _row("Metrics", datasource.metrics, False),
        _row(
            "CDM",
            [
                {"compute_model": "available"},
                {"storage_model": "not available"},
                {"baremetal_model": "not available"},
            ],
            True,
        ),
        _row("Name", strategy_name, ""),
    ]


def _own_datasource(strategy_name: str) -> str:
    """The datasource row of a strategy that measures nothing: why it cannot run,
    Placement's tables, or none."""
    if reason := cannot_run(strategy_name):
        return f"{CANNOT_RUN}: {reason}"
    return "Placement: available" if needs_world(strategy_name) else NO_DATASOURCE


def _row(kind: str, state: Any, mandatory: bool | str) -> dict[str, Any]:
    return {"type": kind, "state": state, "mandatory": mandatory, "comment": ""}
