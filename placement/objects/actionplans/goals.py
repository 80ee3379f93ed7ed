"""Goals: list and show (the rows :mod:`.catalog` writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from placement import db
from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident


@dataclass(frozen=True)
class Goal(paging.Row):
    name: str
    display_name: str
    efficacy_specification: list[dict[str, Any]]


LISTING = paging.Listing(
    kind="Goal",
    row=Goal,
    table=t.goals,
    source=t.goals,
    unsortable=frozenset({"efficacy_specification"}),
)


def list_goals(engine: Engine, page: paging.Page) -> list[Goal]:
    """One page of goals (default: catalog order); opens its own read transaction."""
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page)


def get_goal(engine: Engine, ident: str) -> Goal:
    """The goal with this id, uuid or name (NotFound otherwise); opens its own read
    transaction."""
    with db.reader(engine) as conn:
        return LISTING.one(conn, by_ident(t.goals, ident), ident)
