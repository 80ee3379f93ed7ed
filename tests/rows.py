"""Rows the allocation routes would write, written directly, for object-layer tests."""

from __future__ import annotations

import uuid

import sqlalchemy
from sqlalchemy import insert, select

from placement.db import tables, writer


def _id_of(conn, table, **where) -> int:
    column, value = next(iter(where.items()))
    found = conn.execute(select(table.c.id).where(table.c[column] == value)).scalar()
    if found is None:
        found = conn.execute(insert(table).values(**where)).inserted_primary_key[0]
    return found


def allocate(
    engine: sqlalchemy.Engine,
    provider_uuid: str,
    amounts: dict[str, int],
    *,
    consumer: str | None = None,
    project: str = "proj",
    user: str = "user",
    consumer_type: str | None = None,
) -> str:
    """Give ``consumer`` (new if None) allocations of ``amounts`` on a provider.

    Writes consumers/projects/users/consumer_types rows as the allocation
    routes do; returns the consumer uuid.
    """
    consumer = consumer or str(uuid.uuid4())
    rp, rc = tables.resource_providers, tables.resource_classes
    with writer(engine) as conn:
        provider_id = conn.execute(select(rp.c.id).where(rp.c.uuid == provider_uuid)).scalar_one()
        if (
            conn.execute(
                select(tables.consumers.c.id).where(tables.consumers.c.uuid == consumer)
            ).first()
            is None
        ):
            type_id = (
                _id_of(conn, tables.consumer_types, name=consumer_type) if consumer_type else None
            )
            conn.execute(
                insert(tables.consumers).values(
                    uuid=consumer,
                    project_id=_id_of(conn, tables.projects, external_id=project),
                    user_id=_id_of(conn, tables.users, external_id=user),
                    generation=1,
                    consumer_type_id=type_id,
                )
            )
        for name, used in amounts.items():
            class_id = conn.execute(select(rc.c.id).where(rc.c.name == name)).scalar_one()
            conn.execute(
                insert(tables.allocations).values(
                    resource_provider_id=provider_id,
                    consumer_id=consumer,
                    resource_class_id=class_id,
                    used=used,
                )
            )
    return consumer
