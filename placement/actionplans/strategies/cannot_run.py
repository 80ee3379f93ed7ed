"""What the strategies upstream serves but this service cannot run share.

``outlet_temperature``, ``uniform_airflow`` and ``noisy_neighbor`` read
hardware metrics (IPMI temperatures, airflow, power; L3 cache use) that
upstream's Prometheus datasource maps to no series, and no other datasource is
served here; ``storage_capacity_balance`` balances Cinder's pools, and this
service has no Cinder. They are listed with upstream's names, goals and
parameters so clients and templates find them; ``strategy state`` says why
they cannot run, and an audit naming one is stored FAILED with that reason
(upstream's audit goes FAILED with ``MetricNotAvailable``).
"""

from __future__ import annotations

import functools
from typing import Any

from placement.actionplans.errors import CannotRunHere
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.world import World

#: Why a strategy balancing Cinder's storage pools cannot run here.
NEEDS_CINDER = (
    "it balances Cinder's storage pools, and this service has no Cinder (no storage model)"
)


def reads_unanswered(*metrics: str) -> str:
    """Why a strategy reading ``metrics`` (none of which a datasource here answers)
    cannot run here."""
    return (
        f"it reads {', '.join(metrics)}, which no datasource served here answers "
        "(upstream's Prometheus datasource has no series for them)"
    )


def _refuse(strategy: str, reason: str, parameters: dict[str, Any], world: World) -> Solution:
    """The one algorithm of these strategies: refuse, saying why."""
    raise CannotRunHere(strategy, reason)


def declare(
    name: str, display_name: str, goal: str, parameters_spec: dict[str, Any], reason: str
) -> Strategy:
    """Upstream's strategy ``name`` as listed here, refusing to run for ``reason``."""
    return Strategy(
        name=name,
        display_name=display_name,
        goal=goal,
        parameters_spec=parameters_spec,
        planner=None,
        needs_world=False,
        solve=functools.partial(_refuse, name, reason),
        cannot_run=reason,
    )


def number(description: str, default: float) -> dict[str, Any]:
    """One of their parameters: each is a number with a default."""
    return {"description": description, "type": "number", "default": default}
