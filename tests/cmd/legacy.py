"""Rows shaped like those releases before Stein left behind.

Neither our API nor upstream's writes them any more, so tests make them with
SQL: providers whose ``root_provider_id`` is NULL and allocations whose
consumer has no ``consumers`` row.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placement.db import tables

VCPU = 0  # standard resource class ids are positions in os-resource-classes


def insert_legacy_rows(conn: Connection, providers: int, consumers: dict[str, int]) -> list[int]:
    """``providers`` root-less providers; allocations for ``consumers``.

    ``consumers`` maps a consumer uuid to how many allocations it holds
    (spread over the providers). Returns the new providers' ids.
    """
    ids = []
    for _ in range(providers):
        provider_uuid = str(uuid.uuid4())
        ids.append(
            conn.execute(
                tables.resource_providers.insert().values(
                    uuid=provider_uuid,
                    name=f"legacy-{provider_uuid}",
                    generation=0,
                    root_provider_id=None,
                )
            ).inserted_primary_key[0]
        )
    for consumer_uuid, count in consumers.items():
        for index in range(count):
            conn.execute(
                tables.allocations.insert().values(
                    resource_provider_id=ids[index % len(ids)],
                    consumer_id=consumer_uuid,
                    resource_class_id=VCPU,
                    used=1,
                )
            )
    return ids


def make_legacy(conn: Connection, providers: int, consumers: int) -> None:
    """Turn rows an API wrote into legacy ones.

    The first ``providers`` root providers (by id) lose their
    ``root_provider_id``; the first ``consumers`` consumers that hold
    allocations (by uuid) lose their ``consumers`` row.
    """
    rps, allocs = tables.resource_providers, tables.allocations
    roots = (
        conn.execute(
            sa.select(rps.c.id)
            .where(rps.c.root_provider_id == rps.c.id)
            .order_by(rps.c.id)
            .limit(providers)
        )
        .scalars()
        .all()
    )
    conn.execute(rps.update().where(rps.c.id.in_(roots)).values(root_provider_id=None))
    held = (
        conn.execute(
            sa.select(allocs.c.consumer_id)
            .distinct()
            .order_by(allocs.c.consumer_id)
            .limit(consumers)
        )
        .scalars()
        .all()
    )
    conn.execute(tables.consumers.delete().where(tables.consumers.c.uuid.in_(held)))
