"""Goals: list and show (the rows :mod:`.catalog` writes)."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident

LISTING = paging.Listing(
    kind="Goal",
    table=t.goals,
    source=t.goals,
    unsortable=frozenset({"efficacy_specification"}),
)


def list_goals(conn: Connection, page: paging.Page) -> list[dict]:
    """One page of goals (default: catalog order)."""
    return LISTING.fetch_page(conn, page)


def get_goal(conn: Connection, ident: str) -> dict:
    """The goal with this id, uuid or name; NotFound otherwise."""
    return LISTING.one(conn, by_ident(t.goals, ident), ident)
