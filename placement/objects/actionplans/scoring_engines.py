"""Scoring engines: list and show (the rows :mod:`.catalog` writes from
``placement.actionplans.scoring``; doc/watcher-api.md §10.2)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Engine

from placement import db
from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident


@dataclass(frozen=True)
class ScoringEngine(paging.Row):
    name: str
    description: str | None
    metainfo: str | None


#: Every column sorts, metainfo included (upstream's sortable fields).
LISTING = paging.Listing(
    kind="ScoringEngine", row=ScoringEngine, table=t.scoring_engines, source=t.scoring_engines
)


def list_scoring_engines(engine: Engine, page: paging.Page) -> list[ScoringEngine]:
    """One page of scoring engines (default: upstream's order); opens its own read
    transaction."""
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page)


def get_scoring_engine(engine: Engine, ident: str) -> ScoringEngine:
    """The scoring engine with this id, uuid or name (NotFound otherwise); opens its own
    read transaction."""
    with db.reader(engine) as conn:
        return LISTING.one(conn, by_ident(t.scoring_engines, ident), ident)
