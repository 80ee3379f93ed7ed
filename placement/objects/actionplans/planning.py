"""From an audit request to the rows to store: resolve, validate, solve, plan.

Everything here only reads (goals, strategies, and allocations for a planner
that asks where an instance runs), so it runs in a reader transaction and every
refusal happens before :mod:`.audits` writes anything.
"""

from __future__ import annotations

import functools
import socket
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans import states
from placement.actionplans.action_types import validate_actions
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.datasources import Measure
from placement.actionplans.errors import (
    CannotRunHere,
    NoDatasourceConfigured,
    NotFound,
)
from placement.actionplans.measured import NONE, Query
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.planners import PlannerOptions, make_plan
from placement.actionplans.strategies import (
    cannot_run,
    measures_optional,
    needs_world,
    queries,
    solve,
)
from placement.actionplans.world import World
from placement.db.tables import utcnow
from placement.objects.actionplans import goals, hosts, paging, strategies
from placement.objects.actionplans.idents import by_ident
from placement.objects.actionplans.paging import R
from placement.objects.actionplans.world import read_world

#: Longer audit names are cut to this many characters (as upstream does).
NAME_LENGTH = 63


@dataclass(frozen=True)
class Draft:
    """The rows of one audit run, ready to insert (ids of parents filled in on insert)."""

    audit: dict[str, Any]
    plan: dict[str, Any]
    actions: list[dict[str, Any]]


@dataclass(frozen=True)
class Resolved:
    """What an audit asks for: its goal, its strategy (None: the goal's first one runs)
    and its parameters as stored (a named strategy's defaults filled in, else empty)."""

    goal: goals.Goal
    strategy: strategies.Strategy | None
    parameters: dict[str, Any]
    #: The strategy that runs: the one named, else the goal's first that can run here.
    runner: strategies.Strategy


@dataclass(frozen=True)
class Planned:
    """One run's plan row and its action rows (ids of parents filled in on insert)."""

    plan: dict[str, Any]
    actions: list[dict[str, Any]]


@dataclass(frozen=True)
class Snapshot:
    """What a run reads before its strategy solves: the strategy that runs, the
    capacity snapshot (None: it reads none) and the queries it needs measured."""

    runner: strategies.Strategy
    world: World | None
    queries: tuple[Query, ...] = ()


def snapshot(conn: Connection, resolved: Resolved) -> Snapshot:
    """The strategy that runs, its capacity snapshot and its queries on it."""
    runner = resolved.runner
    world = read_world(conn) if needs_world(runner.name) else None
    wanted = queries(runner.name, resolved.parameters, world) if world is not None else ()
    return Snapshot(runner, world, wanted)


def measured(snap: Snapshot, measure: Measure | None) -> Snapshot:
    """``snap`` with the answers to its queries in its world (outside any transaction:
    a datasource may take seconds). NoDatasource when there are queries and nothing
    to ask them of, unless none is configured and the strategy can do without
    (``measures_optional``): it then solves on no measurements."""
    if not snap.queries or snap.world is None:
        return snap
    try:
        if measure is None:
            raise NoDatasourceConfigured(snap.runner.name, [])
        readings = measure(snap.runner.name, snap.queries)
    except NoDatasourceConfigured:
        if not measures_optional(snap.runner.name):
            raise
        readings = NONE
    return replace(snap, world=replace(snap.world, measurements=readings))


def prepare(
    conn: Connection,
    options: PlannerOptions,
    request: AuditRequest,
    resolved: Resolved,
    snap: Snapshot | None = None,
) -> Draft:
    """Run the strategy (on ``snap`` when read already) and the planner, build the
    rows of a ONESHOT audit run in the request (stored SUCCEEDED)."""
    planned = plan_run(conn, options, resolved, request.auto_trigger, snap)
    audit = audit_row(request, resolved, states.SUCCEEDED, hostname=socket.gethostname())
    return Draft(audit=audit, plan=planned.plan, actions=planned.actions)


def resolve_request(conn: Connection, request: AuditRequest) -> Resolved:
    """What ``request`` (its template already applied) asks for: :func:`resolve`."""
    assert request.goal is not None, "a template gives the goal: from_template runs first"
    return resolve(conn, request.goal, request.strategy, request.parameters)


def resolve(
    conn: Connection, goal_ident: str, strategy_ident: str | None, parameters: Mapping[str, Any]
) -> Resolved:
    """The goal, strategy and parameters named (id, uuid or name), each checked.

    An unknown goal or strategy is NotFound whether or not a name was given (upstream
    answers 500 or drops the strategy). Parameters are checked against the named
    strategy's spec (the audit stores them with the defaults filled in); with no
    strategy they must be empty, and the goal's first strategy runs on its defaults.
    """
    goal = _resolve(conn, goals.LISTING, goal_ident)
    strategy = (
        None if strategy_ident is None else _resolve(conn, strategies.LISTING, strategy_ident)
    )
    spec = strategy.parameters_spec if strategy else {}
    return Resolved(
        goal=goal,
        strategy=strategy,
        parameters=apply_strategy_parameters(spec, parameters),
        runner=strategy or _first_strategy(conn, goal),
    )


def refusal(resolved: Resolved) -> CannotRunHere | None:
    """Why the strategy that would run cannot run in this service (the audit is
    stored FAILED with it, as upstream's fails), or None when it can."""
    reason = cannot_run(resolved.runner.name)
    return None if reason is None else CannotRunHere(resolved.runner.name, reason)


def check_actions(options: PlannerOptions, resolved: Resolved) -> None:
    """Refuse now the actions a recurring audit's every run would refuse.

    A strategy that reads no capacity (``actuator``, ``dummy``) makes the same
    actions from the same parameters at each run, so they are checked against
    the installed action types when the audit is created, as a ONESHOT audit's
    are; a strategy reading capacity is checked by each run on what it finds.
    """
    if not needs_world(resolved.runner.name):
        solution = solve(resolved.runner.name, resolved.parameters, None)
        validate_actions(solution.actions, options.action_types, options.executor)


def plan_run(
    conn: Connection,
    options: PlannerOptions,
    resolved: Resolved,
    auto_trigger: bool,
    snap: Snapshot | None = None,
) -> Planned:
    """Run the strategy on ``snap`` (read now when not given) and the planner."""
    snap = snap or snapshot(conn, resolved)
    runner = snap.runner
    solution = solve(runner.name, resolved.parameters, snap.world)
    validate_actions(solution.actions, options.action_types, options.executor)
    plan = make_plan(
        solution.planner,
        solution.actions,
        options,
        current_host=functools.partial(hosts.current_host, conn),
        node_name=functools.partial(hosts.node_name, conn),
    )
    plan_row = {
        "uuid": str(uuid.uuid4()),
        "strategy_id": runner.id,
        "state": states.initial_plan_state(bool(plan.actions), auto_trigger),
        "efficacy_indicators": solution.efficacy_indicators,
        "global_efficacy": solution.global_efficacy,
        # What the strategy left out and why (a value it could not measure), shown
        # as the plan's status_message from 1.5; None when it left nothing out.
        "status_message": " ".join(solution.notes) or None,
    }
    action_uuids = {planned.index: str(uuid.uuid4()) for planned in plan.actions}
    actions = [
        {
            "uuid": action_uuids[planned.index],
            "position": position,
            "action_type": planned.action.action_type,
            "input_parameters": planned.action.input_parameters,
            "state": states.PENDING,
            "parents": [action_uuids[parent] for parent in planned.parents],
        }
        for position, planned in enumerate(plan.actions)
    ]
    return Planned(plan=plan_row, actions=actions)


def audit_row(
    request: AuditRequest, resolved: Resolved, state: str, hostname: str | None = None
) -> dict[str, Any]:
    """The audit row to insert for ``request`` (checked, its template applied) in ``state``."""
    named = resolved.strategy or resolved.goal
    name = request.name or f"{named.name}-{utcnow().isoformat()}"
    return {
        "uuid": str(uuid.uuid4()),
        "name": name[:NAME_LENGTH],
        "deleted": 0,
        "audit_type": request.audit_type,
        "state": state,
        "goal_id": resolved.goal.id,
        "strategy_id": resolved.strategy.id if resolved.strategy else None,
        "parameters": resolved.parameters,
        "interval": request.interval,
        "scope": list(request.scope),
        "auto_trigger": request.auto_trigger,
        "force": request.force,
        "start_time": request.start_time,
        "end_time": request.end_time,
        "hostname": hostname,
    }


def _resolve(conn: Connection, listing: paging.Listing[R], ident: object) -> R:
    """The live row ``ident`` (id, uuid or name) names; NotFound otherwise."""
    text = str(ident)
    return listing.one(conn, by_ident(listing.table, text), text)


def _first_strategy(conn: Connection, goal: goals.Goal) -> strategies.Strategy:
    """The goal's first strategy in catalog order that can run here (what upstream
    runs for "auto"), or its first when none can (the audit then fails saying why).

    Upstream would run ``storage_capacity_balance`` for ``workload_balancing``;
    here, without Cinder, ``workload_balance`` runs (api-ref's general notes)."""
    of_goal = strategies.LISTING.fetch_page(conn, paging.Page(), goal=goal.uuid)
    if not of_goal:
        raise NotFound("Strategy", f"for goal {goal.name}")
    return next((s for s in of_goal if cannot_run(s.name) is None), of_goal[0])
