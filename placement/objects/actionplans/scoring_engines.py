"""Scoring engines: none here (doc/watcher-api.md §10.2).

Upstream lists the machine-learning scorers its plugins install, for the
``dummy_with_scorer`` strategy alone; this service runs no such strategy, so
the list is empty and every name is unknown. The page is still checked as
upstream checks it, so a bad sort key or limit is the same 400.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine

from placement.actionplans.errors import NotFound
from placement.objects.actionplans import paging

#: Upstream's sortable fields of a scoring engine.
SORTABLE = frozenset({"id", "uuid", "name", "description", "metainfo"})


def list_scoring_engines(engine: Engine, page: paging.Page) -> list[paging.Row]:
    """One page of scoring engines: always empty."""
    paging.check_page(page, SORTABLE)
    return []


def get_scoring_engine(engine: Engine, ident: str) -> paging.Row:
    """Always NotFound, in upstream's words."""
    raise NotFound("ScoringEngine", ident)
