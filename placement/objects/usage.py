"""Usages: sums of allocations per resource class, by provider or by project.

Allocations are tied to projects and users through their consumer row
(``allocations.consumer_id`` is the consumer's uuid); allocations without a
consumer row are not counted by project. Every query groups only by the
columns it selects, so PostgreSQL accepts them.
"""

from __future__ import annotations

from sqlalchemy import Row, Select, distinct, func, select
from sqlalchemy.engine import Engine

from placement import db
from placement.db import tables

#: The group name of consumers that have no consumer type.
UNKNOWN = "unknown"
#: ``consumer_type=all``: every consumer in one group of this name.
ALL = "all"

_ALLOC = tables.allocations
_INV = tables.inventories
_RC = tables.resource_classes


def provider_usages(engine: Engine, provider_id: int) -> dict[str, int]:
    """``{class: used}`` for every class the provider has inventory of (0 if unused)."""
    used = (
        select(_ALLOC.c.resource_class_id, func.sum(_ALLOC.c.used).label("used"))
        .where(_ALLOC.c.resource_provider_id == provider_id)
        .group_by(_ALLOC.c.resource_class_id)
        .subquery()
    )
    query = (
        select(_RC.c.name, func.coalesce(used.c.used, 0))
        .select_from(_INV)
        .join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .outerjoin(used, used.c.resource_class_id == _INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id == provider_id)
        .order_by(_INV.c.resource_class_id)
    )
    with db.reader(engine) as conn:
        return {name: int(total) for name, total in conn.execute(query)}


def _project_allocations(project_id: str, user_id: str | None) -> Select:
    """FROM/WHERE of the allocations of consumers in a project (and user)."""
    consumers, projects = tables.consumers, tables.projects
    query = (
        select()
        .select_from(_ALLOC)
        .join(consumers, consumers.c.uuid == _ALLOC.c.consumer_id)
        .join(projects, projects.c.id == consumers.c.project_id)
        .where(projects.c.external_id == project_id)
    )
    if user_id:
        users = tables.users
        query = query.join(users, users.c.id == consumers.c.user_id).where(
            users.c.external_id == user_id
        )
    return query


def project_usages(engine: Engine, project_id: str, user_id: str | None = None) -> dict[str, int]:
    """``{class: used}`` over the project's (and user's) consumers; unused classes absent."""
    query = (
        _project_allocations(project_id, user_id)
        .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .add_columns(_RC.c.name, func.sum(_ALLOC.c.used))
        .group_by(_RC.c.name)
    )
    with db.reader(engine) as conn:
        return {name: int(total) for name, total in conn.execute(query)}


def project_usages_by_type(
    engine: Engine, project_id: str, user_id: str | None = None, consumer_type: str | None = None
) -> dict[str, dict[str, int]]:
    """Microversion 1.38 usages: ``{type: {class: used, ..., "consumer_count": n}}``.

    ``consumer_type`` None groups by each consumer's type (``"unknown"`` for
    none), ``"all"`` puts everything in one ``"all"`` group, ``"unknown"``
    keeps only untyped consumers, any other name keeps only that type.
    """
    consumers, types = tables.consumers, tables.consumer_types
    base = _project_allocations(project_id, user_id).outerjoin(
        types, types.c.id == consumers.c.consumer_type_id
    )
    if consumer_type == UNKNOWN:
        base = base.where(consumers.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, ALL):
        base = base.where(types.c.name == consumer_type)
    # One group per type name (NULL = untyped), or a single group for "all".
    keys = [] if consumer_type == ALL else [types.c.name]
    sums = (
        base.join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .add_columns(_RC.c.name, func.sum(_ALLOC.c.used), *keys)
        .group_by(_RC.c.name, *keys)
    )
    counts = base.add_columns(func.count(distinct(_ALLOC.c.consumer_id)), *keys).group_by(*keys)
    result: dict[str, dict[str, int]] = {}

    def group_name(row: Row) -> str:
        if consumer_type == ALL:
            return ALL
        return row[-1] or UNKNOWN

    with db.reader(engine) as conn:
        for row in conn.execute(sums):
            result.setdefault(group_name(row), {})[row[0]] = int(row[1])
        for row in conn.execute(counts):
            if row[0]:
                result.setdefault(group_name(row), {})["consumer_count"] = int(row[0])
    return result
