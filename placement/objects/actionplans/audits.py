"""Audits: create (strategy and planner run in the request), list, show, delete."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans import states
from placement.actionplans.errors import Conflict
from placement.actionplans.planners import PlannerOptions
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import paging, planning, state_change
from placement.objects.actionplans.idents import by_ident, by_uuid_or_name


@dataclass(frozen=True)
class Audit(paging.Row):
    """An audit, with its goal's and (when it named one) its strategy's uuid and name."""

    name: str
    audit_type: str
    state: str
    goal_id: int
    strategy_id: int | None
    parameters: dict[str, Any]
    interval: str | None
    scope: list[Any]
    auto_trigger: bool
    next_run_time: datetime.datetime | None
    hostname: str | None
    start_time: datetime.datetime | None
    end_time: datetime.datetime | None
    force: bool
    status_message: str | None
    goal_uuid: str
    goal_name: str
    strategy_uuid: str | None
    strategy_name: str | None


_strategy = t.strategies.alias("audit_strategy")

LISTING = paging.Listing(
    kind="Audit",
    row=Audit,
    table=t.audits,
    source=t.audits.join(t.goals, t.goals.c.id == t.audits.c.goal_id).outerjoin(
        _strategy, _strategy.c.id == t.audits.c.strategy_id
    ),
    joined={
        "goal_uuid": t.goals.c.uuid,
        "goal_name": t.goals.c.name,
        "strategy_uuid": _strategy.c.uuid,
        "strategy_name": _strategy.c.name,
    },
    unsortable=frozenset({"parameters", "scope"}),
    hidden=frozenset({"deleted"}),
    filters={
        "goal": lambda goal: by_uuid_or_name(t.goals, goal),
        "strategy": lambda strategy: by_uuid_or_name(_strategy, strategy),
    },
)


def list_audits(
    engine: Engine, page: paging.Page, goal: str | None = None, strategy: str | None = None
) -> list[Audit]:
    """One page of audits; ``goal``/``strategy`` (uuid or name) filter, unknown ones match none.

    Opens its own read transaction.
    """
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page, goal=goal, strategy=strategy)


def get_audit(engine: Engine, ident: str) -> Audit:
    """The live audit with this id, uuid or name (NotFound otherwise); opens its own read
    transaction."""
    with db.reader(engine) as conn:
        return _get(conn, ident)


def _get(conn: Connection, ident: str) -> Audit:
    return LISTING.one(conn, by_ident(t.audits, ident), ident)


def create_audit(engine: Engine, planner_options: PlannerOptions, fields: dict[str, Any]) -> Audit:
    """Create an audit, run its strategy and planner, store audit + plan + actions.

    ``fields`` holds the validated POST body (``goal`` and ``audit_type``
    required; ``strategy``, ``name``, ``parameters``, ``interval``,
    ``auto_trigger``, ``force``, ``start_time``, ``end_time``, ``scope``
    optional). Everything that can be refused is refused before anything is
    written (unknown goal or strategy, bad parameters or actions, a consumer
    without allocations, a taken name); the one write transaction then stores
    the SUCCEEDED audit, its plan and the plan's actions together, so a
    failure stores nothing. Opens its own transactions; returns the audit.
    """
    with db.reader(engine) as conn:
        draft = planning.prepare(conn, planner_options, fields)
        check_name_free(conn, draft.audit["name"])
    return db.run_in_transaction(engine, lambda conn: _store(conn, draft), write=True)


def _store(conn: Connection, draft: planning.Draft) -> Audit:
    try:
        audit = conn.execute(insert(t.audits).values(**draft.audit))
    except sqlalchemy.exc.IntegrityError as exc:
        raise _name_taken(draft.audit["name"]) from exc
    plan = conn.execute(insert(t.action_plans).values(**draft.plan, audit_id=_new_id(audit)))
    plan_id = _new_id(plan)
    if draft.actions:
        conn.execute(
            insert(t.actions), [{**action, "action_plan_id": plan_id} for action in draft.actions]
        )
    return _get(conn, draft.audit["uuid"])


def _new_id(result: sqlalchemy.CursorResult) -> int:
    """The id the database gave the row a single-row INSERT wrote."""
    key = result.inserted_primary_key
    assert key is not None
    return key[0]


def _name_taken(name: str) -> Conflict:
    return Conflict(f"An audit with UUID or name {name} already exists")


def check_name_free(conn: Connection, name: str) -> None:
    """Raise Conflict if a live audit already has ``name``."""
    taken = conn.execute(
        select(t.audits.c.id).where(t.audits.c.name == name, t.audits.c.deleted == 0)
    ).first()
    if taken is not None:
        raise _name_taken(name)


def delete_audit(engine: Engine, ident: str) -> None:
    """Soft-delete an audit in a deletable state (DeleteError otherwise); its plans stay.

    Opens its own write transaction.
    """

    def decide(audit: Audit) -> dict[str, Any]:
        states.check_audit_deletable(audit.state)
        return {"state": states.DELETED, "deleted_at": utcnow(), "deleted": t.audits.c.id}

    def delete(conn: Connection) -> None:
        state_change.change(conn, t.audits, lambda: _get(conn, ident), decide)

    db.run_in_transaction(engine, delete, write=True)
