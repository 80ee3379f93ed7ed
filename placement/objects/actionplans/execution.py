"""What the applier writes while it executes plans: claims, leases and action runs.

Nothing here is held in memory between calls: every decision is a
compare-and-swap in the database, so any number of applier processes may share
one database and a dead one is replaced by any other.

* A plan is *owned* by the applier named in ``applier_id`` until
  ``lease_expires_at``; the owner renews the lease while it works. Claiming a
  PENDING plan moves it to ONGOING and writes the owner and the lease in one
  UPDATE guarded by the state seen; taking over an ONGOING (or CANCELLING) plan
  whose lease has run out is the same UPDATE guarded by the old owner and the
  expiry, and puts the plan's ONGOING actions back to PENDING in the same
  transaction (their runs never committed, else they would be final).
* Starting an action locks the plan row and checks the owner first, so a
  takeover and a start never interleave; the start counts an attempt.
* An action's final state is written in the transaction of its effect, guarded
  by the attempt that started it: a run started before a takeover cannot
  commit after it, so each effect commits at most once.
* An action whose effect is outside our database (asked of Nova) records what
  it is about to ask in ``actions.request`` before asking, guarded by its
  attempt the same way: a run that is no longer current cannot record, so it
  never asks, and the next owner reads what the last current run asked.

Times are the applier's clock (naive UTC); appliers sharing a database should
keep their clocks in step well within a lease.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Row, or_, select, update
from sqlalchemy.engine import Connection, Engine

from placement.actionplans import states
from placement.actionplans.strategies import actuator
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.db.transaction import reader, writer

#: Plan states an owner works in (CANCELLING: finishing what runs, then CANCELLED).
OWNED_STATES = (states.ONGOING, states.CANCELLING)
#: Plans looked at per claim attempt (the oldest first).
_CLAIM_WINDOW = 5


class LostRun(Exception):
    """The action run being recorded is no longer the current one (plan taken over)."""


@dataclass(frozen=True)
class Claim:
    """A plan an applier has just claimed: its ids, its state once claimed, and
    whether it was ``taken_over`` from ``previous_applier_id`` (whose lease ran out).

    ``as_written``: its actions are its requester's own (the ``actuator``
    strategy's), to be carried out exactly as written, as upstream does; other
    strategies plan from Placement, which cannot tell a stopped server from a
    running one (see :func:`placement.effects.nova.moves.migrate`).
    """

    id: int
    uuid: str
    state: str
    previous_applier_id: str | None
    taken_over: bool
    as_written: bool = False


@dataclass(frozen=True)
class PlanAction:
    """What the applier needs of one of its plan's actions to schedule and run it."""

    id: int
    uuid: str
    state: str
    parents: tuple[str, ...]
    action_type: str
    input_parameters: dict[str, Any]
    #: What the last run asked of an outside service, if it recorded anything.
    request: dict[str, Any] | None = None


def claim_next(engine: Engine, applier_id: str, lease: datetime.timedelta) -> Claim | None:
    """Claim the oldest claimable plan for ``applier_id``, or None when there is none.

    Claimable: PENDING (becomes ONGOING), or ONGOING/CANCELLING with no lease or
    an expired one (taken over: state kept, its ONGOING actions back to
    PENDING). Opens its own write transaction.
    """
    now = utcnow()
    plans = t.action_plans
    expired = or_(plans.c.lease_expires_at.is_(None), plans.c.lease_expires_at < now)
    claimable = or_(plans.c.state == states.PENDING, plans.c.state.in_(OWNED_STATES) & expired)
    with writer(engine) as conn:
        seen = conn.execute(
            select(plans.c.id, plans.c.uuid, plans.c.state, plans.c.applier_id, t.strategies.c.name)
            .join(t.strategies, t.strategies.c.id == plans.c.strategy_id)
            .where(plans.c.deleted_at.is_(None), claimable)
            .order_by(plans.c.id)
            .limit(_CLAIM_WINDOW)
        ).all()
        for row in seen:
            claim = _claim(conn, row, applier_id, now + lease, expired)
            if claim is not None:
                return claim
    return None


def _claim(
    conn: Connection,
    row: Row,
    applier_id: str,
    lease_expires_at: datetime.datetime,
    expired: ColumnElement[bool],
) -> Claim | None:
    """Claim the plan ``row`` was read from, guarded by what was read; None
    when another applier changed it first."""
    plans = t.action_plans
    taken_over = row.state != states.PENDING
    guard = [plans.c.id == row.id, plans.c.state == row.state]
    guard.append(
        plans.c.applier_id.is_(None)
        if row.applier_id is None
        else plans.c.applier_id == row.applier_id
    )
    if taken_over:
        guard.append(expired)
    won = conn.execute(
        update(plans)
        .where(*guard)
        .values(
            state=row.state if taken_over else states.ONGOING,
            applier_id=applier_id,
            lease_expires_at=lease_expires_at,
        )
    ).rowcount
    if won != 1:
        return None
    if taken_over:
        # The runs of the old owner's ONGOING actions never committed.
        conn.execute(
            update(t.actions)
            .where(t.actions.c.action_plan_id == row.id)
            .where(t.actions.c.state == states.ONGOING)
            .values(state=states.PENDING)
        )
    return Claim(
        id=row.id,
        uuid=row.uuid,
        state=row.state if taken_over else states.ONGOING,
        previous_applier_id=row.applier_id,
        taken_over=taken_over,
        as_written=row.name == actuator.STRATEGY.name,
    )


def renew_lease(engine: Engine, plan_id: int, applier_id: str, lease: datetime.timedelta) -> bool:
    """Push the lease of a plan ``applier_id`` owns to now + ``lease``; False if not owned."""
    with writer(engine) as conn:
        return (
            conn.execute(
                update(t.action_plans)
                .where(t.action_plans.c.id == plan_id, t.action_plans.c.applier_id == applier_id)
                .where(t.action_plans.c.state.in_(OWNED_STATES))
                .values(lease_expires_at=utcnow() + lease)
            ).rowcount
            == 1
        )


def release(engine: Engine, plan_id: int, applier_id: str) -> None:
    """End ``applier_id``'s lease now, so another applier takes the plan over at once."""
    with writer(engine) as conn:
        conn.execute(
            update(t.action_plans)
            .where(t.action_plans.c.id == plan_id, t.action_plans.c.applier_id == applier_id)
            .where(t.action_plans.c.state.in_(OWNED_STATES))
            .values(lease_expires_at=utcnow() - datetime.timedelta(seconds=1))
        )


def owned_state(engine: Engine, plan_id: int, applier_id: str) -> str | None:
    """The plan's state while ``applier_id`` owns it, else None (one indexed row read)."""
    with reader(engine) as conn:
        row = conn.execute(
            select(t.action_plans.c.state, t.action_plans.c.applier_id).where(
                t.action_plans.c.id == plan_id
            )
        ).one_or_none()
    if row is None or row.applier_id != applier_id or row.state not in OWNED_STATES:
        return None
    return str(row.state)


def plan_actions(engine: Engine, plan_id: int) -> list[PlanAction]:
    """The plan's live actions in plan order: what the applier needs to run them."""
    a = t.actions
    with reader(engine) as conn:
        rows = conn.execute(
            select(
                a.c.id,
                a.c.uuid,
                a.c.state,
                a.c.parents,
                a.c.action_type,
                a.c.input_parameters,
                a.c.request,
            )
            .where(a.c.action_plan_id == plan_id, a.c.deleted_at.is_(None))
            .order_by(a.c.position, a.c.id)
        ).all()
    return [
        PlanAction(
            id=row.id,
            uuid=row.uuid,
            state=row.state,
            parents=tuple(row.parents or ()),
            action_type=row.action_type,
            input_parameters=row.input_parameters,
            request=row.request,
        )
        for row in rows
    ]


def _lock_owned(conn: Connection, plan_id: int, applier_id: str, allowed: tuple[str, ...]) -> bool:
    """Lock the plan row; True when ``applier_id`` owns it in one of ``allowed`` states."""
    row = conn.execute(
        select(t.action_plans.c.state, t.action_plans.c.applier_id)
        .where(t.action_plans.c.id == plan_id)
        .with_for_update()
    ).one_or_none()
    return row is not None and row.applier_id == applier_id and row.state in allowed


def start_action(engine: Engine, plan_id: int, action_id: int, applier_id: str) -> int | None:
    """PENDING -> ONGOING for an action of an ONGOING plan ``applier_id`` owns.

    Returns the run's attempt number (what :func:`finish_action` must be given),
    or None when the action is not PENDING or the plan is no longer ours or is
    being cancelled. Opens its own write transaction.
    """
    with writer(engine) as conn:
        if not _lock_owned(conn, plan_id, applier_id, (states.ONGOING,)):
            return None
        started = conn.execute(
            update(t.actions)
            .where(t.actions.c.id == action_id, t.actions.c.state == states.PENDING)
            .values(
                state=states.ONGOING,
                started_at=utcnow(),
                finished_at=None,
                attempts=t.actions.c.attempts + 1,
            )
        ).rowcount
        if started != 1:
            return None
        return int(
            conn.execute(
                select(t.actions.c.attempts).where(t.actions.c.id == action_id)
            ).scalar_one()
        )


def requeue_actions(
    engine: Engine, plan_id: int, applier_id: str, action_ids: list[int]
) -> list[int]:
    """ONGOING -> PENDING for actions of a plan ``applier_id`` owns that have no run.

    For a start whose commit answer was lost: the action is ONGOING in the
    database but its owner never ran it, and no takeover will ever reset it
    while that owner keeps the lease. The caller must know that none of these
    actions has a run in flight (a stale run could not commit anyway: the next
    start counts a new attempt). Returns the ids changed; opens its own write
    transaction.
    """
    return _move_owned_actions(
        engine,
        plan_id,
        applier_id,
        states.ONGOING,
        {action_id: {"state": states.PENDING, "started_at": None} for action_id in action_ids},
    )


def finish_action(
    conn: Connection, action_id: int, attempt: int, state: str, message: str | None
) -> None:
    """Record the final state of run ``attempt`` of an action, in the caller's transaction.

    Raises LostRun when that run is no longer the current ONGOING one; the
    caller must then roll back (its effect must not commit).
    """
    finished = conn.execute(
        update(t.actions)
        .where(t.actions.c.id == action_id, t.actions.c.state == states.ONGOING)
        .where(t.actions.c.attempts == attempt)
        .values(state=state, status_message=message, finished_at=utcnow())
    ).rowcount
    if finished != 1:
        raise LostRun(f"action {action_id} run {attempt} is no longer current")


def record_request(engine: Engine, action_id: int, attempt: int, request: dict[str, Any]) -> None:
    """Record what run ``attempt`` of an action is about to ask of an outside service.

    Written (in its own transaction, committed before the caller asks) only
    while that run is the current ONGOING one; raises LostRun otherwise, and the
    caller must not ask.
    """
    with writer(engine) as conn:
        recorded = conn.execute(
            update(t.actions)
            .where(t.actions.c.id == action_id, t.actions.c.state == states.ONGOING)
            .where(t.actions.c.attempts == attempt)
            .values(request=request)
        ).rowcount
    if recorded != 1:
        raise LostRun(f"action {action_id} run {attempt} is no longer current")


def cancel_actions(
    engine: Engine, plan_id: int, applier_id: str, messages: Mapping[int, str | None]
) -> list[int]:
    """PENDING -> CANCELLED for the actions in ``messages`` (id -> status message).

    Only while ``applier_id`` owns the plan; returns the ids it changed. Opens
    its own write transaction.
    """
    return _move_owned_actions(
        engine,
        plan_id,
        applier_id,
        states.PENDING,
        {
            action_id: {"state": states.CANCELLED, "status_message": message}
            for action_id, message in messages.items()
        },
    )


def _move_owned_actions(
    engine: Engine,
    plan_id: int,
    applier_id: str,
    from_state: str,
    changes: Mapping[int, Mapping[str, Any]],
) -> list[int]:
    """Apply ``changes`` (action id -> new values) to those of the plan's actions still in
    ``from_state``, only while ``applier_id`` owns the plan; returns the ids changed."""
    changed: list[int] = []
    with writer(engine) as conn:
        if not _lock_owned(conn, plan_id, applier_id, OWNED_STATES):
            return changed
        for action_id, values in changes.items():
            done = conn.execute(
                update(t.actions)
                .where(t.actions.c.id == action_id, t.actions.c.action_plan_id == plan_id)
                .where(t.actions.c.state == from_state)
                .values(**values)
            ).rowcount
            if done == 1:
                changed.append(action_id)
    return changed


def finish_plan(
    engine: Engine,
    plan_id: int,
    applier_id: str,
    state: str,
    message: str | None,
    cancel_pending: bool = False,
) -> bool:
    """Record the plan's final state (ends the lease); False when that is not ours to do.

    The plan must be ours and still CANCELLING when ``cancel_pending`` (the end
    of a user's cancel, which also turns its PENDING actions CANCELLED in the
    same transaction), ONGOING otherwise: a cancel that arrived since the
    caller decided wins. Opens its own write transaction.
    """
    expected = states.CANCELLING if cancel_pending else states.ONGOING
    with writer(engine) as conn:
        if not _lock_owned(conn, plan_id, applier_id, (expected,)):
            return False
        if cancel_pending:
            conn.execute(
                update(t.actions)
                .where(t.actions.c.action_plan_id == plan_id)
                .where(t.actions.c.state == states.PENDING, t.actions.c.deleted_at.is_(None))
                .values(state=states.CANCELLED)
            )
        conn.execute(
            update(t.action_plans)
            .where(t.action_plans.c.id == plan_id)
            .values(state=state, status_message=message, lease_expires_at=None)
        )
    return True
