"""Actions: list (in plan order by default), show, and the user's skip."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans import states
from placement.actionplans.errors import PlanStateForbidsActionUpdate
from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging, state_change
from placement.objects.actionplans.idents import canonical_uuid


@dataclass(frozen=True)
class Action(paging.Row):
    """An action, with its plan's uuid; ``position`` is its place in the plan's order,
    ``started_at``, ``finished_at``, ``attempts`` and ``request`` (what a run asked of
    Nova) the applier's record of its runs."""

    action_plan_id: int
    position: int
    action_type: str
    description: str | None
    input_parameters: dict[str, Any]
    state: str
    parents: list[str]
    status_message: str | None
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    attempts: int
    request: dict[str, Any] | None
    action_plan_uuid: str


LISTING = paging.Listing(
    kind="Action",
    row=Action,
    table=t.actions,
    source=t.actions.join(t.action_plans, t.action_plans.c.id == t.actions.c.action_plan_id),
    joined={"action_plan_uuid": t.action_plans.c.uuid},
    # JSON values, and the applier's bookkeeping, which the API never shows.
    unsortable=frozenset(
        {
            "input_parameters",
            "parents",
            "position",
            "started_at",
            "finished_at",
            "attempts",
            "request",
        }
    ),
    filters={
        "action_plan_uuid": lambda uuid: t.action_plans.c.uuid == canonical_uuid(uuid),
        "audit_uuid": lambda uuid: t.action_plans.c.audit_id.in_(
            select(t.audits.c.id).where(t.audits.c.uuid == canonical_uuid(uuid)).scalar_subquery()
        ),
    },
)


def list_actions(
    engine: Engine,
    page: paging.Page,
    action_plan_uuid: str | None = None,
    audit_uuid: str | None = None,
) -> list[Action]:
    """One page of actions; filter by plan or by audit (the API refuses both at once).

    Opens its own read transaction.
    """
    with db.reader(engine) as conn:
        return LISTING.fetch_page(
            conn, page, action_plan_uuid=action_plan_uuid, audit_uuid=audit_uuid
        )


def get_action(engine: Engine, uuid: str) -> Action:
    """The live action with this uuid (NotFound otherwise); opens its own read transaction."""
    with db.reader(engine) as conn:
        return _get(conn, uuid)


def _get(conn: Connection, uuid: str) -> Action:
    return LISTING.one(conn, t.actions.c.uuid == canonical_uuid(uuid), uuid)


def update_action(
    engine: Engine, uuid: str, state: str | None = None, reason: str | None = None
) -> Action:
    """Skip a PENDING action (``state="SKIPPED"``), optionally saying why.

    Allowed only while the plan is RECOMMENDED or PENDING; the plan's row is
    locked first, so a concurrent start or cancel of the plan waits for the
    skip or makes it fail. ``status_message`` becomes "Action skipped by
    user." plus " Reason: …"; a reason alone may only be set on a SKIPPED
    action. Opens its own write transaction; returns the action.
    """

    def run(conn: Connection) -> Action:
        action = _get(conn, uuid)
        plan_state = conn.execute(
            select(t.action_plans.c.state)
            .where(t.action_plans.c.id == action.action_plan_id)
            .with_for_update()
        ).scalar_one()

        def decide(current: Action) -> dict[str, Any] | None:
            if state is not None and state != current.state:
                new = states.check_action_transition(current.state, state, plan_state)
                return {"state": new, "status_message": states.skipped_status_message(reason)}
            if reason is None:
                return None
            states.check_status_message_update(current.state)
            if plan_state not in states.PLAN_STATES_ALLOWING_ACTION_UPDATE:
                raise PlanStateForbidsActionUpdate(plan_state)
            return {"status_message": states.skipped_status_message(reason)}

        state_change.change(conn, t.actions, lambda: _get(conn, uuid), decide)
        return _get(conn, uuid)

    return db.run_in_transaction(engine, run, write=True)
