"""The built-in goals, strategies and scoring engines, as the API lists them.

The object layer writes these as rows, in this order: upstream's entry-point order
(alphabetical), hence the default list order. Goals are declared in ``goals.py``,
each strategy in its own module under ``strategies/``; only strategies this service
can run are listed (doc/planner.md §4: a strategy's planner, or None when the
configuration or the audit chooses). Scoring engines are declared in ``scoring.py``.
"""

from __future__ import annotations

from placement.actionplans.goals import GOALS, GOALS_BY_NAME, GoalSpec
from placement.actionplans.scoring import SCORING_ENGINES, ScoringEngine
from placement.actionplans.strategies import STRATEGIES, STRATEGIES_BY_NAME, Strategy

__all__ = [
    "GOALS",
    "GOALS_BY_NAME",
    "SCORING_ENGINES",
    "STRATEGIES",
    "STRATEGIES_BY_NAME",
    "GoalSpec",
    "ScoringEngine",
    "Strategy",
]
