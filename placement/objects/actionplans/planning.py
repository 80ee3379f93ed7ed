"""From an audit's POST body to the rows to store: resolve, validate, solve, plan.

Everything here only reads (goals, strategies, and allocations for a planner
that asks where an instance runs), so it runs in a reader transaction and every
refusal happens before :mod:`.audits` writes anything.
"""

from __future__ import annotations

import functools
import socket
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection

from placement.actionplans import states
from placement.actionplans.action_types import validate_actions
from placement.actionplans.errors import NotFound
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.planners import PlannerOptions, make_plan
from placement.actionplans.strategies import needs_world, solve
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import hosts
from placement.objects.actionplans.effects import registry
from placement.objects.actionplans.idents import by_ident
from placement.objects.actionplans.world import read_world

#: Longer audit names are cut to this many characters (as upstream does).
NAME_LENGTH = 63


@dataclass(frozen=True)
class Draft:
    """The rows of one audit run, ready to insert (ids of parents filled in on insert)."""

    audit: dict[str, Any]
    plan: dict[str, Any]
    actions: list[dict[str, Any]]


def prepare(conn: Connection, options: PlannerOptions, fields: dict[str, Any]) -> Draft:
    """Resolve goal and strategy, run the strategy and the planner, build the rows.

    An unknown goal or strategy is NotFound whether or not a name was given (upstream
    answers 500 or drops the strategy); parameters go through the strategy's strict
    validator; with no strategy the goal's first one runs and the audit keeps none.
    """
    goal = _resolve(conn, t.goals, "Goal", fields["goal"])
    chosen = fields.get("strategy")
    strategy = None if chosen is None else _resolve(conn, t.strategies, "Strategy", chosen)
    parameters = apply_strategy_parameters(
        strategy["parameters_spec"] if strategy else {}, fields.get("parameters") or {}
    )
    runner = strategy or _first_strategy(conn, goal)
    world = read_world(conn) if needs_world(runner["name"]) else None
    solution = solve(runner["name"], parameters, world)
    validate_actions(solution.actions, registry.installed_schemas())
    plan = make_plan(
        solution.planner,
        solution.actions,
        options,
        current_host=functools.partial(hosts.current_host, conn),
        node_name=functools.partial(hosts.node_name, conn),
    )
    now = utcnow()
    name = fields.get("name") or f"{(strategy or goal)['name']}-{now.isoformat()}"
    audit = {
        "uuid": str(uuid.uuid4()),
        "name": name[:NAME_LENGTH],
        "deleted": 0,
        "audit_type": fields["audit_type"],
        "state": states.SUCCEEDED,
        "goal_id": goal["id"],
        "strategy_id": strategy["id"] if strategy else None,
        "parameters": parameters,
        "interval": fields.get("interval"),
        "scope": fields.get("scope") or [],
        "auto_trigger": bool(fields.get("auto_trigger", False)),
        "force": bool(fields.get("force", False)),
        "start_time": fields.get("start_time"),
        "end_time": fields.get("end_time"),
        "hostname": socket.gethostname(),
    }
    if not plan.actions:
        plan_state = states.SUCCEEDED
    elif audit["auto_trigger"]:
        plan_state = states.PENDING
    else:
        plan_state = states.RECOMMENDED
    plan_row = {
        "uuid": str(uuid.uuid4()),
        "strategy_id": runner["id"],
        "state": plan_state,
        "efficacy_indicators": solution.efficacy_indicators,
        "global_efficacy": solution.global_efficacy,
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
    return Draft(audit=audit, plan=plan_row, actions=actions)


def _resolve(conn: Connection, table: Table, kind: str, ident: object) -> dict:
    text = str(ident)
    row = (
        conn.execute(select(table).where(by_ident(table, text), table.c.deleted_at.is_(None)))
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(kind, text)
    return dict(row)


def _first_strategy(conn: Connection, goal: dict) -> dict:
    """The goal's first strategy in catalog order (what upstream runs for "auto")."""
    row = (
        conn.execute(
            select(t.strategies)
            .where(t.strategies.c.goal_id == goal["id"], t.strategies.c.deleted_at.is_(None))
            .order_by(t.strategies.c.id)
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound("Strategy", f"for goal {goal['name']}")
    return dict(row)
