"""What the audit runner writes: claims of due audits, their leases, each run's outcome.

As for the applier's plans (:mod:`.execution`), nothing is held in memory
between calls: every decision is a compare-and-swap in the database, so any
number of runners may share one database and a dead one is replaced.

* A recurring audit is *due* when it is CONTINUOUS, PENDING or ONGOING, and its
  ``next_run_time`` is unset (never run) or past; an EVENT audit when a webhook
  set its ``next_run_time`` (:func:`.audits.trigger_event`) and that is past.
* A due audit is *claimed* by the runner named in ``runner_id`` until
  ``lease_expires_at``, in one UPDATE guarded by what the runner saw (state,
  owner, still due, lease free or run out): two runners never hold one audit,
  and a dead runner's audit is claimable again once its lease has run out.
  ``hostname`` shows the host of the runner that claimed it last.
* The run's outcome is written in one transaction that first checks, with the
  row locked, that the audit is still this runner's and still ONGOING (a PATCH
  may have suspended or cancelled it meanwhile: the plan is then dropped).

Times are the caller's ``now`` (naive UTC), so tests move the clock.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import DateTime, and_, case, literal, or_, select, update
from sqlalchemy.engine import Connection, Engine

from placement.actionplans import states
from placement.actionplans.audit_types import CONTINUOUS, EVENT
from placement.actionplans.datasources import Measure
from placement.actionplans.planners import PlannerOptions
from placement.db import actionplan_tables as t
from placement.db.transaction import reader, writer
from placement.objects.actionplans import audits, planning

#: Audits looked at per claim attempt (the longest due first).
_CLAIM_WINDOW = 5

_a = t.audits


#: When an audit is due again (None: now, or at its next webhook).
Due = datetime.datetime | None


@dataclass(frozen=True)
class AuditClaim:
    """A due audit a runner has just claimed, as it was when claimed."""

    id: int
    uuid: str
    audit_type: str
    state: str
    interval: str | None
    start_time: datetime.datetime | None
    end_time: datetime.datetime | None
    force: bool
    auto_trigger: bool
    goal_id: int
    strategy_id: int | None
    parameters: dict[str, Any]
    previous_runner_id: str | None


def _due(now: datetime.datetime) -> tuple[Any, ...]:
    """The conditions of a due audit whose lease is free or has run out."""
    continuous = (
        (_a.c.audit_type == CONTINUOUS)
        & _a.c.state.in_((states.PENDING, states.ONGOING))
        & or_(_a.c.next_run_time.is_(None), _a.c.next_run_time <= now)
    )
    event = (
        (_a.c.audit_type == EVENT)
        & _a.c.state.in_((states.PENDING, states.ONGOING, states.SUCCEEDED))
        & (_a.c.next_run_time <= now)
    )
    free = or_(_a.c.lease_expires_at.is_(None), _a.c.lease_expires_at < now)
    return (_a.c.deleted == 0, or_(continuous, event), free)


_CLAIMED = (
    _a.c.id,
    _a.c.uuid,
    _a.c.audit_type,
    _a.c.state,
    _a.c.interval,
    _a.c.start_time,
    _a.c.end_time,
    _a.c.force,
    _a.c.auto_trigger,
    _a.c.goal_id,
    _a.c.strategy_id,
    _a.c.parameters,
    _a.c.runner_id,
)


def claim_due(
    engine: Engine,
    runner_id: str,
    hostname: str,
    lease: datetime.timedelta,
    now: datetime.datetime,
) -> AuditClaim | None:
    """Claim the longest-due audit for ``runner_id``, or None when none is due.

    Opens its own write transaction; the claim is one UPDATE per audit tried,
    guarded by the state and owner seen and by the audit still being due.
    """
    with writer(engine) as conn:
        seen = conn.execute(
            select(*_CLAIMED)
            .where(*_due(now))
            .order_by(_a.c.next_run_time.is_(None).desc(), _a.c.next_run_time, _a.c.id)
            .limit(_CLAIM_WINDOW)
        ).all()
        for row in seen:
            owner = (
                _a.c.runner_id.is_(None)
                if row.runner_id is None
                else _a.c.runner_id == row.runner_id
            )
            won = conn.execute(
                update(_a)
                .where(_a.c.id == row.id, _a.c.state == row.state, owner, *_due(now))
                .values(runner_id=runner_id, lease_expires_at=now + lease, hostname=hostname)
            ).rowcount
            if won == 1:
                return AuditClaim(
                    **{k: v for k, v in row._mapping.items() if k != "runner_id"},
                    previous_runner_id=row.runner_id,
                )
    return None


def _owned(runner_id: str, audit_id: int) -> tuple[Any, ...]:
    return (_a.c.id == audit_id, _a.c.runner_id == runner_id, _a.c.lease_expires_at.isnot(None))


def renew_lease(
    engine: Engine, audit_id: int, runner_id: str, lease: datetime.timedelta, now: datetime.datetime
) -> bool:
    """Push the lease of an audit ``runner_id`` holds to ``now + lease``; False if not held."""
    with writer(engine) as conn:
        renewed = conn.execute(
            update(_a).where(*_owned(runner_id, audit_id)).values(lease_expires_at=now + lease)
        ).rowcount
    return renewed == 1


def release(engine: Engine, claim: AuditClaim, runner_id: str, next_run_time: Due) -> None:
    """End the lease without running (a skipped run): the audit is due at
    ``next_run_time`` (see :func:`_rescheduled_or`)."""
    with writer(engine) as conn:
        conn.execute(
            update(_a)
            .where(*_owned(runner_id, claim.id))
            .values(lease_expires_at=None, next_run_time=_rescheduled_or(claim, next_run_time))
        )


def _rescheduled_or(claim: AuditClaim, next_run_time: Due) -> sqlalchemy.ColumnElement:
    """``next_run_time``, unless the audit's interval or window changed since
    ``claim`` was made: that change (a PATCH during the run) set the next
    run itself, from the new schedule, and a run that started on the old
    one must not put it back."""
    unchanged = and_(
        _a.c.interval.is_not_distinct_from(claim.interval),
        _a.c.start_time.is_not_distinct_from(claim.start_time),
        _a.c.end_time.is_not_distinct_from(claim.end_time),
    )
    return case((unchanged, literal(next_run_time, DateTime())), else_=_a.c.next_run_time)


def end(engine: Engine, audit_id: int, runner_id: str, state: str, message: str | None) -> None:
    """Finish a held audit in ``state`` (SUCCEEDED after its window, FAILED on an error)."""
    with writer(engine) as conn:
        conn.execute(
            update(_a)
            .where(*_owned(runner_id, audit_id))
            .where(_a.c.state.in_((states.PENDING, states.ONGOING, states.SUCCEEDED)))
            .values(state=state, status_message=message, lease_expires_at=None)
        )


def begin(engine: Engine, audit_id: int, runner_id: str) -> bool:
    """The held audit becomes ONGOING for its run; False when it is no longer ours."""
    with writer(engine) as conn:
        started = conn.execute(
            update(_a)
            .where(*_owned(runner_id, audit_id))
            .where(_a.c.state.in_((states.PENDING, states.ONGOING, states.SUCCEEDED)))
            .values(state=states.ONGOING)
        ).rowcount
    return started == 1


def ongoing_plan(engine: Engine) -> str | None:
    """The force guard's question: the uuid of a plan ONGOING anywhere, or None."""
    with reader(engine) as conn:
        return audits.ongoing_plan(conn)


def plan(
    engine: Engine, options: PlannerOptions, claim: AuditClaim, measure: Measure | None = None
) -> planning.Planned:
    """Run the audit's strategy on the current capacity and plan (a read transaction).

    A strategy that reads measured load has its queries answered by ``measure``
    between two read transactions (the snapshot, then the plan on it); no
    datasource answering raises NoDatasource."""
    strategy = None if claim.strategy_id is None else str(claim.strategy_id)
    with reader(engine) as conn:
        resolved = planning.resolve(conn, str(claim.goal_id), strategy, claim.parameters)
        snap = planning.snapshot(conn, resolved)
        if not snap.queries:
            return planning.plan_run(conn, options, resolved, claim.auto_trigger, snap)
    snap = planning.measured(snap, measure)
    with reader(engine) as conn:
        return planning.plan_run(conn, options, resolved, claim.auto_trigger, snap)


def store(
    engine: Engine,
    claim: AuditClaim,
    runner_id: str,
    planned: planning.Planned,
    next_run_time: datetime.datetime | None,
) -> bool:
    """Store a run's plan, in one transaction; False (nothing written) when the audit
    is no longer this runner's or no longer ONGOING.

    A CONTINUOUS audit's earlier RECOMMENDED plans become CANCELLED with their
    PENDING actions, so only the newest is RECOMMENDED; the audit stays ONGOING
    and is due again at ``next_run_time``. An EVENT audit becomes SUCCEEDED and
    waits for its next webhook.
    """
    with writer(engine) as conn:
        if not _lock_running(conn, claim.id, runner_id):
            return False
        if claim.audit_type == CONTINUOUS:
            _cancel_recommended(conn, claim.id)
        audits.insert_plan(conn, claim.id, planned.plan, planned.actions)
        state = states.ONGOING if claim.audit_type == CONTINUOUS else states.SUCCEEDED
        conn.execute(
            update(_a)
            .where(_a.c.id == claim.id)
            .values(
                state=state,
                next_run_time=_rescheduled_or(claim, next_run_time),
                lease_expires_at=None,
            )
        )
    return True


def _lock_running(conn: Connection, audit_id: int, runner_id: str) -> bool:
    row = conn.execute(
        select(_a.c.state, _a.c.runner_id, _a.c.lease_expires_at)
        .where(_a.c.id == audit_id)
        .with_for_update()
    ).one_or_none()
    return (
        row is not None
        and row.runner_id == runner_id
        and row.lease_expires_at is not None
        and row.state == states.ONGOING
    )


def _cancel_recommended(conn: Connection, audit_id: int) -> None:
    plans = t.action_plans
    earlier = select(plans.c.id).where(
        plans.c.audit_id == audit_id,
        plans.c.state == states.RECOMMENDED,
        plans.c.deleted_at.is_(None),
    )
    ids = [row.id for row in conn.execute(earlier)]
    if not ids:
        return
    conn.execute(
        update(t.actions)
        .where(t.actions.c.action_plan_id.in_(ids), t.actions.c.state == states.PENDING)
        .where(t.actions.c.deleted_at.is_(None))
        .values(state=states.CANCELLED)
    )
    conn.execute(
        update(plans)
        .where(plans.c.id.in_(ids), plans.c.state == states.RECOMMENDED)
        .values(state=states.CANCELLED)
    )
