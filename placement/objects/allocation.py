"""Allocations: how much of which class each consumer holds on each provider.

Reading them, by consumer or by provider, and deleting a consumer's. Writing
them is the claim: :mod:`placement.objects.claim`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

import sqlalchemy
from sqlalchemy import delete, func, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.db import tables
from placement.objects import consumer as consumer_obj
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj

_ALLOC = tables.allocations


# --- reading ------------------------------------------------------------------


@dataclass
class ProviderShare:
    """What one consumer holds on one provider, and that provider's generation."""

    generation: int
    resources: dict[str, int] = field(default_factory=dict)


@dataclass
class ConsumerAllocations:
    """Everything one consumer holds (``GET /allocations/{consumer_uuid}``)."""

    providers: dict[str, ProviderShare]
    project_id: str
    user_id: str
    generation: int
    consumer_type: str
    last_modified: datetime.datetime | None


@dataclass
class ConsumerShare:
    """What one consumer holds on a provider, and the consumer's generation."""

    generation: int
    resources: dict[str, int] = field(default_factory=dict)


@dataclass
class ProviderAllocations:
    """Everything held on one provider (``GET /resource_providers/{u}/allocations``)."""

    generation: int
    consumers: dict[str, ConsumerShare]
    last_modified: datetime.datetime | None


def consumer_rows(
    conn: Connection, consumer_uuid: str, *, with_roots: bool = False
) -> list[sqlalchemy.Row]:
    """What ``consumer_uuid`` holds, a row per allocation in the order written.

    Each row: the provider's ``uuid`` and ``generation``, ``class_name``,
    ``used``, ``created_at``; the consumer's ``consumer_generation``,
    ``project_id`` and ``user_id`` (internal ids), ``project`` and ``user``
    (external ids) and ``consumer_type`` (None when unset); with
    ``with_roots``, the ``root_uuid`` of the provider's tree too.
    """
    rp, c, rc = tables.resource_providers, tables.consumers, tables.resource_classes
    p, u, ct = tables.projects, tables.users, tables.consumer_types
    columns = [
        rp.c.uuid,
        rp.c.generation,
        rc.c.name.label("class_name"),
        _ALLOC.c.used,
        _ALLOC.c.created_at,
        c.c.generation.label("consumer_generation"),
        c.c.project_id,
        c.c.user_id,
        p.c.external_id.label("project"),
        u.c.external_id.label("user"),
        ct.c.name.label("consumer_type"),
    ]
    source = (
        _ALLOC.join(rp, rp.c.id == _ALLOC.c.resource_provider_id)
        .join(c, c.c.uuid == _ALLOC.c.consumer_id)
        .join(p, p.c.id == c.c.project_id)
        .join(u, u.c.id == c.c.user_id)
        .join(rc, rc.c.id == _ALLOC.c.resource_class_id)
        .outerjoin(ct, ct.c.id == c.c.consumer_type_id)
    )
    if with_roots:
        root = rp.alias("root")
        columns.append(root.c.uuid.label("root_uuid"))
        source = source.join(root, root.c.id == func.coalesce(rp.c.root_provider_id, rp.c.id))
    query = (
        select(*columns)
        .select_from(source)
        .where(_ALLOC.c.consumer_id == consumer_uuid)
        .order_by(_ALLOC.c.id)
    )
    return list(conn.execute(query).all())


def get_for_consumer(engine: Engine, consumer_uuid: str) -> ConsumerAllocations | None:
    """What ``consumer_uuid`` holds, or None when it holds nothing."""
    with db.reader(engine) as conn:
        rows = consumer_rows(conn, consumer_uuid)
    if not rows:
        return None
    providers: dict[str, ProviderShare] = {}
    for row in rows:
        share = providers.setdefault(row.uuid, ProviderShare(row.generation))
        share.resources[row.class_name] = row.used
    first = rows[0]
    return ConsumerAllocations(
        providers=providers,
        project_id=first.project,
        user_id=first.user,
        generation=first.consumer_generation,
        consumer_type=first.consumer_type or consumer_obj.UNKNOWN_TYPE,
        last_modified=_newest(row.created_at for row in rows),
    )


def get_for_provider(engine: Engine, provider_uuid: str) -> ProviderAllocations | None:
    """What every consumer holds on ``provider_uuid``; None if no such provider."""
    c, rc = tables.consumers, tables.resource_classes
    with db.reader(engine) as conn:
        provider = rp_obj.get_by_uuid(conn, provider_uuid)
        if provider is None:
            return None
        rows = conn.execute(
            select(
                _ALLOC.c.consumer_id,
                c.c.generation,
                rc.c.name.label("class_name"),
                _ALLOC.c.used,
                _ALLOC.c.created_at,
            )
            .select_from(
                _ALLOC.join(c, c.c.uuid == _ALLOC.c.consumer_id).join(
                    rc, rc.c.id == _ALLOC.c.resource_class_id
                )
            )
            .where(_ALLOC.c.resource_provider_id == provider.id)
            .order_by(_ALLOC.c.id)
        ).all()
    consumers: dict[str, ConsumerShare] = {}
    for row in rows:
        share = consumers.setdefault(row.consumer_id, ConsumerShare(row.generation))
        share.resources[row.class_name] = row.used
    return ProviderAllocations(
        provider.generation, consumers, _newest(row.created_at for row in rows)
    )


def _newest(stamps: Iterable[datetime.datetime | None]) -> datetime.datetime | None:
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


# --- deleting -------------------------------------------------------------------


def delete_for_consumer(engine: Engine, consumer_uuid: str) -> None:
    """Remove everything ``consumer_uuid`` holds and the consumer itself.

    No generation is checked and no provider generation changes (as
    upstream). :class:`NoAllocations` when the consumer holds nothing.
    """
    c = tables.consumers

    def run(conn: Connection) -> None:
        held = conn.execute(
            select(_ALLOC.c.id)
            .join(c, c.c.uuid == _ALLOC.c.consumer_id)
            .where(_ALLOC.c.consumer_id == consumer_uuid)
            .limit(1)
        ).first()
        if held is None:
            raise exceptions.NoAllocations(consumer_uuid)
        conn.execute(delete(_ALLOC).where(_ALLOC.c.consumer_id == consumer_uuid))
        consumer_obj.delete_if_unused(conn, [consumer_uuid])

    db.run_in_transaction(engine, run, write=True)
