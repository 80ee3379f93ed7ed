"""Audit templates: saved goal, strategy, scope and default parameters (``audit create -a``).

A template is checked whole whenever it is written, so a stored one always
holds: its goal exists, its strategy (if any) exists and serves that goal, and
its default parameters (if any) pass that strategy's ``parameters_spec``.
Goals and strategies are named by uuid or name, strategies also by id, as
upstream resolves them; an unknown one is a 400 (``Goal X is invalid``), not
a 404, because it is a bad value in the body. Templates are soft-deleted like
audits: ``deleted`` takes the row's id, freeing the name.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans import errors
from placement.actionplans.parameters import apply_strategy_parameters
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import goals, paging, strategies
from placement.objects.actionplans.idents import by_ident, by_uuid_or_name


@dataclass(frozen=True)
class AuditTemplate(paging.Row):
    """A live template, with its goal's and (when it names one) its strategy's uuid and name."""

    name: str
    description: str | None
    goal_id: int
    strategy_id: int | None
    scope: list[Any]
    default_parameters: dict[str, Any] | None
    goal_uuid: str
    goal_name: str
    strategy_uuid: str | None
    strategy_name: str | None


_strategy = t.strategies.alias("template_strategy")

LISTING = paging.Listing(
    kind="AuditTemplate",
    row=AuditTemplate,
    table=t.audit_templates,
    source=t.audit_templates.join(t.goals, t.goals.c.id == t.audit_templates.c.goal_id).outerjoin(
        _strategy, _strategy.c.id == t.audit_templates.c.strategy_id
    ),
    joined={
        "goal_uuid": t.goals.c.uuid,
        "goal_name": t.goals.c.name,
        "strategy_uuid": _strategy.c.uuid,
        "strategy_name": _strategy.c.name,
    },
    unsortable=frozenset({"scope", "default_parameters"}),
    hidden=frozenset({"deleted"}),
    filters={
        "goal": lambda goal: by_uuid_or_name(t.goals, goal),
        "strategy": lambda strategy: by_uuid_or_name(_strategy, strategy),
    },
)

#: The attributes a template is written from (POST body keys, PATCH paths).
ATTRIBUTES = ("name", "description", "goal", "strategy", "scope", "default_parameters")


def list_templates(
    engine: Engine, page: paging.Page, goal: str | None = None, strategy: str | None = None
) -> list[AuditTemplate]:
    """One page of live templates; ``goal``/``strategy`` (uuid or name) filter, unknown ones
    match none. Opens its own read transaction."""
    with db.reader(engine) as conn:
        return LISTING.fetch_page(conn, page, goal=goal, strategy=strategy)


def get_template(engine: Engine, ident: str) -> AuditTemplate:
    """The live template with this id, uuid or name (NotFound otherwise); opens its own
    read transaction."""
    with db.reader(engine) as conn:
        return get(conn, ident)


def get(conn: Connection, ident: str) -> AuditTemplate:
    """:func:`get_template` inside the caller's transaction."""
    return LISTING.one(conn, by_ident(t.audit_templates, ident), ident)


def create_template(engine: Engine, attributes: dict[str, Any]) -> AuditTemplate:
    """Store a new template from ``attributes`` (:data:`ATTRIBUTES`; ``name`` and ``goal``
    required). Raises Invalid for a bad goal, strategy or default parameters and
    TemplateNameTaken for a name a live template has; opens its own transaction."""

    def create(conn: Connection) -> AuditTemplate:
        values = _checked(conn, attributes)
        row_uuid = str(uuid.uuid4())
        statement = insert(t.audit_templates).values(uuid=row_uuid, deleted=0, **values)
        _write(conn, statement, values["name"])
        return get(conn, row_uuid)

    return db.run_in_transaction(engine, create, write=True)


def update_template(engine: Engine, ident: str, changes: dict[str, Any]) -> AuditTemplate:
    """Apply ``changes`` (attribute → new value, None to remove; a null goal leaves it
    as it was) to the live template
    ``ident`` and check the result whole (as :func:`create_template`). Changing the goal or
    strategy of a template with default parameters needs new ones in the same change
    (DefaultParametersOutdated otherwise, as upstream). Opens its own transaction."""

    def change(conn: Connection) -> AuditTemplate:
        found = get(conn, ident)
        retargeted = {"goal", "strategy"} & changes.keys()
        if found.default_parameters and retargeted and "default_parameters" not in changes:
            raise errors.DefaultParametersOutdated()
        values = _checked(conn, {**_attributes_of(found), **_without_null_goal(changes)})
        statement = update(t.audit_templates).where(t.audit_templates.c.id == found.id)
        _write(conn, statement.values(**values), values["name"], found.id)
        return get(conn, found.uuid)

    return db.run_in_transaction(engine, change, write=True)


def delete_template(engine: Engine, ident: str) -> None:
    """Soft-delete the live template ``ident`` (NotFound otherwise); audits made from it
    keep what they took. Opens its own write transaction."""

    def delete(conn: Connection) -> None:
        found = get(conn, ident)
        conn.execute(
            update(t.audit_templates)
            .where(t.audit_templates.c.id == found.id)
            .values(deleted_at=utcnow(), deleted=t.audit_templates.c.id)
        )

    db.run_in_transaction(engine, delete, write=True)


def _without_null_goal(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` without a null goal: upstream leaves the goal as it was."""
    if "goal" in changes and changes["goal"] is None:
        return {key: value for key, value in changes.items() if key != "goal"}
    return changes


def _attributes_of(found: AuditTemplate) -> dict[str, Any]:
    return {
        "name": found.name,
        "description": found.description,
        "goal": found.goal_uuid,
        "strategy": found.strategy_uuid,
        "scope": found.scope,
        "default_parameters": found.default_parameters,
    }


def _checked(conn: Connection, attributes: dict[str, Any]) -> dict[str, Any]:
    """The column values of a template with ``attributes``, each checked (module docstring)."""
    goal = _goal(conn, attributes["goal"])
    strategy = _strategy_of(conn, attributes.get("strategy"), goal)
    defaults = attributes.get("default_parameters") or None
    if defaults is not None:
        if strategy is None:
            raise errors.DefaultParametersNeedStrategy()
        apply_strategy_parameters(strategy.parameters_spec, defaults)  # stored as given
    return {
        "name": attributes["name"],
        "description": attributes.get("description"),
        "goal_id": goal.id,
        "strategy_id": None if strategy is None else strategy.id,
        "scope": attributes.get("scope") or [],
        "default_parameters": defaults,
    }


def _goal(conn: Connection, ident: str) -> goals.Goal:
    found = conn.execute(goals.LISTING.query().where(by_uuid_or_name(t.goals, ident))).first()
    if found is None:
        raise errors.InvalidGoal(ident)
    return goals.Goal(**found._mapping)


def _strategy_of(
    conn: Connection, ident: str | None, goal: goals.Goal
) -> strategies.Strategy | None:
    """The strategy ``ident`` names (None for none), which must serve ``goal``."""
    if ident is None:
        return None
    query = strategies.LISTING.query()
    found = conn.execute(query.where(by_ident(t.strategies, str(ident)))).first()
    if found is None:
        raise errors.InvalidStrategy(ident)
    strategy = strategies.Strategy(**found._mapping)
    if strategy.goal_id != goal.id:
        served = conn.execute(query.where(t.strategies.c.goal_id == goal.id)).all()
        choices = ", ".join(f"'{row.uuid}' ({row.name})" for row in served)
        raise errors.StrategyNotOfGoal(strategy.name, goal.name, choices)
    return strategy


def _write(conn: Connection, statement: Any, name: str, own_id: int | None = None) -> None:
    """Run an INSERT (or the UPDATE of the row ``own_id``) of a template; a name another
    live template has is TemplateNameTaken, whether seen first or raced to."""
    taken = conn.execute(
        select(t.audit_templates.c.id).where(
            t.audit_templates.c.name == name, t.audit_templates.c.deleted == 0
        )
    ).first()
    if taken is not None and taken.id != own_id:
        raise errors.TemplateNameTaken(name)
    try:
        conn.execute(statement)
    except sqlalchemy.exc.IntegrityError as exc:
        raise errors.TemplateNameTaken(name) from exc
