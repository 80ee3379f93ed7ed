"""Action plans: list, show, start, state changes through PATCH, delete."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Connection, Engine

from placement.actionplans import states
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.db.transaction import run_in_transaction
from placement.objects.actionplans import paging, state_change
from placement.objects.actionplans.idents import by_uuid_or_name, canonical_uuid

LISTING = paging.Listing(
    kind="ActionPlan",
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
    conn: Connection,
    page: paging.Page,
    audit_uuid: str | None = None,
    strategy: str | None = None,
) -> list[dict]:
    """One page of plans; ``audit_uuid`` and ``strategy`` (uuid or name) filter."""
    return LISTING.fetch_page(conn, page, audit_uuid=audit_uuid, strategy=strategy)


def get_plan(conn: Connection, uuid: str) -> dict:
    """The live plan with this uuid; NotFound otherwise."""
    return LISTING.one(conn, t.action_plans.c.uuid == canonical_uuid(uuid), uuid)


def _transition(engine: Engine, uuid: str, decide: Any) -> dict:
    """Run one compare-and-swap change of the plan ``uuid``; returns the plan after it."""

    def run(conn: Connection) -> dict:
        before = state_change.change(conn, t.action_plans, lambda: get_plan(conn, uuid), decide)
        after = get_plan(conn, uuid)
        if after["state"] == states.CANCELLED and before["state"] != states.CANCELLED:
            _cancel_pending_actions(conn, before["id"])
        return after

    return run_in_transaction(engine, run, write=True)


def start_plan(engine: Engine, uuid: str) -> dict:
    """RECOMMENDED -> PENDING; any other state (also a lost race) raises StartError.

    Opens its own write transaction; returns the started plan.
    """

    def decide(plan: dict) -> dict[str, Any]:
        states.check_plan_startable(plan["state"])
        return {"state": states.PENDING}

    return _transition(engine, uuid, decide)


def update_state(engine: Engine, uuid: str, new_state: object) -> dict:
    """Move a plan to ``new_state`` if PLANNER.md section 7 allows it from where it is.

    Cancelling also cancels the plan's PENDING actions, in the same transaction.
    Opens its own write transaction; returns the plan.
    """

    def decide(plan: dict) -> dict[str, Any]:
        return {"state": states.check_plan_transition(plan["state"], new_state)}

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

    def decide(plan: dict) -> dict[str, Any]:
        states.check_plan_deletable(plan["state"])
        return {"state": states.DELETED, "deleted_at": utcnow()}

    def delete(conn: Connection) -> None:
        plan = state_change.change(conn, t.action_plans, lambda: get_plan(conn, uuid), decide)
        conn.execute(
            update(t.actions)
            .where(t.actions.c.action_plan_id == plan["id"], t.actions.c.deleted_at.is_(None))
            .values(state=states.DELETED, deleted_at=utcnow())
        )

    run_in_transaction(engine, delete, write=True)
