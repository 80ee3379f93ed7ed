"""Strategies: list (optionally for one goal) and show, with their goal's uuid and name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from placement import db
from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident, by_uuid_or_name


@dataclass(frozen=True)
class Strategy(paging.Row):
    name: str
    display_name: str
    goal_id: int
    parameters_spec: dict[str, Any]
    goal_uuid: str
    goal_name: str


LISTING = paging.Listing(
    kind="Strategy",
    row=Strategy,
    table=t.strategies,
    source=t.strategies.join(t.goals, t.goals.c.id == t.strategies.c.goal_id),
    joined={"goal_uuid": t.goals.c.uuid, "goal_name": t.goals.c.name},
    unsortable=frozenset({"parameters_spec"}),
    filters={"goal": lambda goal: by_uuid_or_name(t.goals, goal)},
)


def list_strategies(engine: Engine, page: paging.Page, goal: str | None = None) -> list[Strategy]:
    """One page of strategies; ``goal`` (uuid or name) filters, an unknown one matches none.

    Opens its own read transaction.
    """
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page, goal=goal)


def get_strategy(engine: Engine, ident: str) -> Strategy:
    """The strategy with this id, uuid or name (NotFound otherwise); opens its own read
    transaction."""
    with db.reader(engine) as conn:
        return LISTING.one(conn, by_ident(t.strategies, ident), ident)
