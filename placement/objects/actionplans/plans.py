"""Action plans: list, show, start, state changes through PATCH, delete."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans import states
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import paging, state_change
from placement.objects.actionplans.idents import by_uuid_or_name, canonical_uuid


@dataclass(frozen=True)
class ActionPlan(paging.Row):
    """A plan, with its audit's uuid and its strategy's uuid and name; ``applier_id``
    and ``lease_expires_at`` are the executing applier's claim."""

    audit_id: int
    strategy_id: int
    state: str
    efficacy_indicators: list[dict[str, Any]]
    global_efficacy: list[dict[str, Any]]
    hostname: str | None
    status_message: str | None
    applier_id: str | None
    lease_expires_at: datetime.datetime | None
    audit_uuid: str
    strategy_uuid: str
    strategy_name: str


#: Decides a plan's change from the plan as read (see :mod:`.state_change`).
Decide = Callable[[ActionPlan], dict[str, Any] | None]

LISTING = paging.Listing(
    kind="ActionPlan",
    row=ActionPlan,
    table=t.action_plans,
    source=t.action_plans.join(t.audits, t.audits.c.id == t.action_plans.c.audit_id).join(
        t.strategies, t.strategies.c.id == t.action_plans.c.strategy_id
    ),
    joined={
        "audit_uuid": t.audits.c.uuid,
        "strategy_uuid": t.strategies.c.uuid,
        "strategy_name": t.strategies.c.name,
    },
    # JSON values, and the applier's lease, which the API never shows.
    unsortable=frozenset(
        {"efficacy_indicators", "global_efficacy", "applier_id", "lease_expires_at"}
    ),
    filters={
        "audit_uuid": lambda uuid: t.audits.c.uuid == canonical_uuid(uuid),
        "strategy": lambda strategy: by_uuid_or_name(t.strategies, strategy),
    },
)


def list_plans(
    engine: Engine,
    page: paging.Page,
    audit_uuid: str | None = None,
    strategy: str | None = None,
) -> list[ActionPlan]:
    """One page of plans; ``audit_uuid`` and ``strategy`` (uuid or name) filter.

    Opens its own read transaction.
    """
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page, audit_uuid=audit_uuid, strategy=strategy)


def get_plan(engine: Engine, uuid: str) -> ActionPlan:
    """The live plan with this uuid (NotFound otherwise); opens its own read transaction."""
    with db.reader(engine) as conn:
        return _get(conn, uuid)


def _get(conn: Connection, uuid: str) -> ActionPlan:
    return LISTING.one(conn, t.action_plans.c.uuid == canonical_uuid(uuid), uuid)


def _transition(engine: Engine, uuid: str, decide: Decide) -> ActionPlan:
    """Run one compare-and-swap change of the plan ``uuid``; returns the plan after it."""

    def run(conn: Connection) -> ActionPlan:
        before = state_change.change(conn, t.action_plans, lambda: _get(conn, uuid), decide)
        after = _get(conn, uuid)
        if after.state == states.CANCELLED and before.state != states.CANCELLED:
            _cancel_pending_actions(conn, before.id)
        return after

    return db.run_in_transaction(engine, run, write=True)


def start_plan(engine: Engine, uuid: str) -> ActionPlan:
    """RECOMMENDED -> PENDING; any other state (also a lost race) raises StartError.

    Opens its own write transaction; returns the started plan.
    """

    def decide(plan: ActionPlan) -> dict[str, Any]:
        states.check_plan_startable(plan.state)
        return {"state": states.PENDING}

    return _transition(engine, uuid, decide)


def update_state(engine: Engine, uuid: str, new_state: object) -> ActionPlan:
    """Move a plan to ``new_state`` if doc/planner.md §7 allows it from where it is.

    Cancelling also cancels the plan's PENDING actions, in the same transaction.
    Opens its own write transaction; returns the plan.
    """

    def decide(plan: ActionPlan) -> dict[str, Any]:
        return {"state": states.check_plan_transition(plan.state, new_state)}

    return _transition(engine, uuid, decide)


def _cancel_pending_actions(conn: Connection, plan_id: int) -> None:
    conn.execute(
        update(t.actions)
        .where(t.actions.c.action_plan_id == plan_id, t.actions.c.state == states.PENDING)
        .where(t.actions.c.deleted_at.is_(None))
        .values(state=states.CANCELLED)
    )


def delete_plan(engine: Engine, uuid: str) -> None:
    """Soft-delete a plan in a deletable state and its actions (DeleteError otherwise).

    Opens its own write transaction.
    """

    def decide(plan: ActionPlan) -> dict[str, Any]:
        states.check_plan_deletable(plan.state)
        return {"state": states.DELETED, "deleted_at": utcnow()}

    def delete(conn: Connection) -> None:
        plan = state_change.change(conn, t.action_plans, lambda: _get(conn, uuid), decide)
        conn.execute(
            update(t.actions)
            .where(t.actions.c.action_plan_id == plan.id, t.actions.c.deleted_at.is_(None))
            .values(state=states.DELETED, deleted_at=utcnow())
        )

    db.run_in_transaction(engine, delete, write=True)
