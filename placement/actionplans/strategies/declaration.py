"""What a strategy module declares: everything the catalog serves and ``solve`` runs.

A strategy is one module ending in one ``STRATEGY = Strategy(...)``, so its goal,
the parameters it accepts and the algorithm that reads them are read and changed
together; ``strategies.STRATEGIES`` lists the modules' declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from placement.actionplans.measured import Query
from placement.actionplans.solution import Solution
from placement.actionplans.world import World

#: An algorithm: the validated parameters (defaults filled in) and a capacity
#: snapshot to a solution. A strategy that does not declare ``needs_world`` is
#: given an empty snapshot and ignores it.
Algorithm = Callable[[dict[str, Any], World], Solution]

#: What a metric strategy must have measured before it solves: the queries for the
#: validated parameters and the snapshot, answered in ``World.measurements``.
Measures = Callable[[dict[str, Any], World], tuple[Query, ...]]


@dataclass(frozen=True)
class Strategy:
    """One strategy, as the API lists it and as audits run it.

    ``goal`` names a goal of ``goals.GOALS``; ``parameters_spec`` is the JSON schema
    served as is and applied to an audit's parameters; ``planner`` is the planner of
    its plans, or None when the configuration (or the audit) chooses, or when the
    solution brings a planner made for it (``zone_migration``); ``needs_world``
    says whether the object layer must read a capacity snapshot before solving;
    ``measures``, for a strategy that reads measured load, the queries a
    datasource must answer first (None: it reads none); ``measures_optional``,
    that it can do without them: when no datasource is configured it is given
    no measurements (``World.measurements.datasource`` None) instead of its
    audit failing, and says in its solution what it read instead;
    ``cannot_run``, for a strategy upstream serves that cannot run here, why
    not (None: it runs).
    """

    name: str
    display_name: str
    goal: str
    parameters_spec: dict[str, Any]
    planner: str | None
    needs_world: bool
    solve: Algorithm
    measures: Measures | None = None
    measures_optional: bool = False
    cannot_run: str | None = None
