"""What ``strategy state`` reports: what a strategy needs and whether it has it.

Upstream asks its decision engine for the strategy's datasource (Gnocchi,
Prometheus…), the metrics it reads from it and the cluster data models it
needs, then adds the strategy's name. Here every strategy reads Placement's own
tables, which are there whenever the API answers: a strategy that reads
capacity has the ``Placement`` datasource and the compute model, available;
one that reads none (``dummy``, ``actuator``) has no datasource. No strategy
reads metrics, and no storage or bare-metal model exists.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.strategies import needs_world

NO_DATASOURCE = "Datasource is not presented for this strategy"


def strategy_state(strategy_name: str) -> list[dict[str, Any]]:
    """Upstream's four rows (datasource, metrics, data models, name) for ``strategy_name``."""
    reads_capacity = needs_world(strategy_name)
    return [
        _row("Datasource", "Placement: available" if reads_capacity else NO_DATASOURCE, True),
        _row("Metrics", [], False),
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


def _row(kind: str, state: Any, mandatory: bool | str) -> dict[str, Any]:
    return {"type": kind, "state": state, "mandatory": mandatory, "comment": ""}
