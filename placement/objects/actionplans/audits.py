"""Audits: create (a ONESHOT audit is planned in the request), list, show, change,
trigger (an EVENT audit's webhook), delete."""

from __future__ import annotations

import datetime
import socket
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans import audit_changes, audit_types, states
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.datasources import Measure
from placement.actionplans.errors import (
    ActionPlanError,
    ActionPlanIsOngoing,
    AuditStateNotAllowed,
    AuditTypeNotAllowed,
    Conflict,
    NoDatasource,
)
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
    # The audit runner's lease is its own business (objects/actionplans/audit_runs.py).
    hidden=frozenset({"deleted", "runner_id", "lease_expires_at"}),
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


def create_audit(
    engine: Engine,
    planner_options: PlannerOptions,
    request: AuditRequest,
    measure: Measure | None = None,
) -> Audit:
    """Create an audit; a ONESHOT one is planned here, in the request.

    ``request`` is the checked POST body, its template (if any) already
    applied (``from_template.apply_template``), so it names a goal.
    Everything that can be refused is refused before anything is written
    (unknown goal or strategy, bad parameters or actions, a consumer without
    allocations, a taken name); one write transaction then stores what is
    decided, so a failure stores nothing:

    * an audit of any type whose strategy cannot run here (``cannot_run.py``) is
      stored FAILED with the reason as its ``status_message``, with no plan (as
      upstream's goes FAILED with ``MetricNotAvailable``);
    * a CONTINUOUS or EVENT audit is stored PENDING, for the audit runner
      (doc/watcher-api.md §3.8);
    * a ONESHOT audit without ``force`` while any plan is ONGOING is stored
      CANCELLED with no plan (the force guard, doc/planner.md §7);
    * any other ONESHOT audit is stored SUCCEEDED with its plan and actions; when
      its strategy reads measured load, ``measure`` answers its queries between
      reading the snapshot and planning on it, outside any transaction, and an
      audit no datasource answers is stored FAILED with the reason as its
      ``status_message`` (as upstream stores it), with no plan.

    Opens its own transactions; returns the audit.
    """
    with db.reader(engine) as conn:
        draft = _draft(conn, planner_options, request)
        if isinstance(draft, _Rows):
            check_name_free(conn, draft.audit["name"])
    if isinstance(draft, _Unmeasured):
        draft = _measured(engine, planner_options, request, draft, measure)
    rows = draft
    return db.run_in_transaction(engine, lambda conn: _store(conn, rows), write=True)


def _draft(
    conn: Connection, planner_options: PlannerOptions, request: AuditRequest
) -> _Rows | _Unmeasured:
    resolved = planning.resolve_request(conn, request)
    refused = planning.refusal(resolved)
    if refused is not None:
        return _failed(request, resolved, refused)
    if request.audit_type != audit_types.ONESHOT:
        planning.check_actions(planner_options, resolved)
        return _Rows(planning.audit_row(request, resolved, states.PENDING))
    running = None if request.force else ongoing_plan(conn)
    if running is not None:
        audit = planning.audit_row(request, resolved, states.CANCELLED)
        return _Rows({**audit, "status_message": str(ActionPlanIsOngoing(running))})
    snap = planning.snapshot(conn, resolved)
    if snap.queries:
        return _Unmeasured(resolved, snap)
    draft = planning.prepare(conn, planner_options, request, resolved, snap)
    return _Rows(draft.audit, draft.plan, draft.actions)


@dataclass(frozen=True)
class _Unmeasured:
    """A ONESHOT audit whose strategy's queries are still to be asked."""

    resolved: planning.Resolved
    snap: planning.Snapshot


def _measured(
    engine: Engine,
    planner_options: PlannerOptions,
    request: AuditRequest,
    unmeasured: _Unmeasured,
    measure: Measure | None,
) -> _Rows:
    """Ask the queries (no transaction open), then, in one read transaction, plan on
    the snapshot already read (or the FAILED audit when no datasource answers) and
    check the name is still free."""
    snap, failure = unmeasured.snap, None
    try:
        snap = planning.measured(snap, measure)
    except NoDatasource as exc:
        failure = exc
    with db.reader(engine) as conn:
        if failure is not None:
            rows = _failed(request, unmeasured.resolved, failure)
        else:
            draft = planning.prepare(conn, planner_options, request, unmeasured.resolved, snap)
            rows = _Rows(draft.audit, draft.plan, draft.actions)
        check_name_free(conn, rows.audit["name"])
    return rows


def _failed(request: AuditRequest, resolved: planning.Resolved, why: ActionPlanError) -> _Rows:
    """The FAILED audit of a run that could not plan, ``why`` as its status message."""
    audit = planning.audit_row(request, resolved, states.FAILED, hostname=socket.gethostname())
    return _Rows({**audit, "status_message": str(why)})


@dataclass(frozen=True)
class _Rows:
    """An audit row to insert, with its plan's rows when it was planned."""

    audit: dict[str, Any]
    plan: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)


def ongoing_plan(conn: Connection) -> str | None:
    """The uuid of a plan that is ONGOING anywhere (the force guard's question), or None."""
    plans = t.action_plans
    return conn.execute(
        select(plans.c.uuid)
        .where(plans.c.state == states.ONGOING, plans.c.deleted_at.is_(None))
        .order_by(plans.c.id)
        .limit(1)
    ).scalar()


def _store(conn: Connection, rows: _Rows) -> Audit:
    try:
        audit = conn.execute(insert(t.audits).values(**rows.audit))
    except sqlalchemy.exc.IntegrityError as exc:
        raise _name_taken(rows.audit["name"]) from exc
    if rows.plan is not None:
        insert_plan(conn, _new_id(audit), rows.plan, rows.actions)
    return _get(conn, rows.audit["uuid"])


def insert_plan(
    conn: Connection, audit_id: int, plan: dict[str, Any], actions: list[dict[str, Any]]
) -> None:
    """Insert an audit's plan and its actions, in the caller's transaction."""
    plan_id = _new_id(conn.execute(insert(t.action_plans).values(**plan, audit_id=audit_id)))
    if actions:
        conn.execute(
            insert(t.actions), [{**action, "action_plan_id": plan_id} for action in actions]
        )


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


def update_audit(
    engine: Engine, ident: str, changes: dict[str, Any], now: datetime.datetime | None = None
) -> Audit:
    """Apply a PATCH's ``changes`` (attribute -> value) to an audit (doc/watcher-api.md §3.5).

    Decided by :func:`placement.actionplans.audit_changes.decide` from the audit
    as read, written with a compare-and-swap on the state seen; a taken name is
    a Conflict. Opens its own write transaction; returns the audit after it.
    """
    moment = now or utcnow()

    def run(conn: Connection) -> Audit:
        def decide(audit: Audit) -> dict[str, Any]:
            current = audit_changes.Current(
                audit_type=audit.audit_type,
                state=audit.state,
                interval=audit.interval,
                start_time=audit.start_time,
                end_time=audit.end_time,
                parameters_spec=_spec(conn, audit.strategy_id),
            )
            return audit_changes.decide(current, changes, moment)

        try:
            before = state_change.change(conn, t.audits, lambda: _get(conn, ident), decide)
        except sqlalchemy.exc.IntegrityError as exc:
            raise _name_taken(str(changes.get("name"))) from exc
        return _get(conn, before.uuid)

    return db.run_in_transaction(engine, run, write=True)


def _spec(conn: Connection, strategy_id: int | None) -> dict[str, Any]:
    """The parameters spec of the audit's strategy ({}: none named, so none allowed)."""
    if strategy_id is None:
        return {}
    spec = conn.execute(
        select(t.strategies.c.parameters_spec).where(t.strategies.c.id == strategy_id)
    ).scalar_one()
    return dict(spec or {})


def trigger_event(engine: Engine, ident: str, now: datetime.datetime | None = None) -> Audit:
    """Make an EVENT audit due (a webhook): the audit runner runs it next.

    Only an EVENT audit in PENDING or SUCCEEDED is triggered, as upstream's
    webhook demands (AuditTypeNotAllowed, AuditStateNotAllowed otherwise). Due
    means ``next_run_time`` at ``now``; the run clears it. Opens its own write
    transaction.
    """
    moment = now or utcnow()

    def decide(audit: Audit) -> dict[str, Any]:
        if audit.audit_type != audit_types.EVENT:
            raise AuditTypeNotAllowed(audit.audit_type)
        if audit.state not in (states.PENDING, states.SUCCEEDED):
            raise AuditStateNotAllowed(audit.state)
        return {"next_run_time": moment}

    def run(conn: Connection) -> Audit:
        before = state_change.change(conn, t.audits, lambda: _get(conn, ident), decide)
        return _get(conn, before.uuid)

    return db.run_in_transaction(engine, run, write=True)
