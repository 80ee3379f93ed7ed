"""Strategies: list (optionally for one goal) and show, with their goal's uuid and name."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident, by_uuid_or_name

LISTING = paging.Listing(
    kind="Strategy",
    table=t.strategies,
    source=t.strategies.join(t.goals, t.goals.c.id == t.strategies.c.goal_id),
    joined={"goal_uuid": t.goals.c.uuid, "goal_name": t.goals.c.name},
    unsortable=frozenset({"parameters_spec"}),
    filters={"goal": lambda goal: by_uuid_or_name(t.goals, goal)},
)


def list_strategies(conn: Connection, page: paging.Page, goal: str | None = None) -> list[dict]:
    """One page of strategies; ``goal`` (uuid or name) filters, an unknown one matches none."""
    return LISTING.fetch_page(conn, page, goal=goal)


def get_strategy(conn: Connection, ident: str) -> dict:
    """The strategy with this id, uuid or name; NotFound otherwise."""
    return LISTING.one(conn, by_ident(t.strategies, ident), ident)
