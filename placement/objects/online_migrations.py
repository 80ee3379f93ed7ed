"""Online data migrations: repair rows that releases before Stein left behind.

Two kinds of legacy rows exist in old Placement (and Nova API) databases, and
the schema migrations after the initial one refuse to run while any remain:

* resource providers whose ``root_provider_id`` is NULL (written before
  nested providers existed): each such provider is its own root;
* allocations whose ``consumer_id`` has no ``consumers`` row (written below
  microversion 1.8): each gets a consumer owned by the configured
  "incomplete" project and user.

Each migration fixes at most ``limit`` rows in one transaction and returns
``(found, done)``, the shape ``placement-manage db online_data_migrations``
reports. Both are idempotent, so a batch can be retried or run concurrently.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from placement import db
from placement.db import tables
from placement.objects import consumer as consumer_obj


@dataclass(frozen=True)
class IncompleteOwner:
    """External project and user ids given to consumers nobody recorded."""

    project_id: str
    user_id: str


def set_root_provider_ids(engine: Engine, limit: int) -> tuple[int, int]:
    """Make up to ``limit`` providers lacking a root their own root."""
    rps = tables.resource_providers
    with db.writer(engine) as conn:
        ids = (
            conn.execute(
                sa.select(rps.c.id)
                .where(rps.c.root_provider_id.is_(None))
                .order_by(rps.c.id)
                .limit(limit)
            )
            .scalars()
            .all()
        )
        if not ids:
            return 0, 0
        done = conn.execute(
            rps.update()
            .where(rps.c.id.in_(ids), rps.c.root_provider_id.is_(None))
            .values(root_provider_id=rps.c.id)
        ).rowcount
    return done, done


def create_incomplete_consumers(
    engine: Engine, limit: int, owner: IncompleteOwner
) -> tuple[int, int]:
    """Give up to ``limit`` consumers that only exist in allocations a record."""
    allocs, consumers = tables.allocations, tables.consumers
    project_id, user_id, _ = consumer_obj.owner_ids(engine, owner.project_id, owner.user_id)
    with db.writer(engine) as conn:
        missing = (
            conn.execute(
                sa.select(allocs.c.consumer_id)
                .select_from(allocs.outerjoin(consumers, allocs.c.consumer_id == consumers.c.uuid))
                .where(consumers.c.id.is_(None))
                .group_by(allocs.c.consumer_id)
                .order_by(allocs.c.consumer_id)
                .limit(limit)
            )
            .scalars()
            .all()
        )
        if missing:
            conn.execute(
                consumers.insert(),
                [
                    {"uuid": uuid, "project_id": project_id, "user_id": user_id, "generation": 0}
                    for uuid in missing
                ],
            )
    return len(missing), len(missing)


@dataclass(frozen=True)
class OnlineMigration:
    name: str
    run: Callable[[Engine, int], tuple[int, int]]


def migrations(owner: IncompleteOwner) -> tuple[OnlineMigration, ...]:
    """Every online migration, in the order upstream runs them."""
    return (
        OnlineMigration("set_root_provider_ids", set_root_provider_ids),
        OnlineMigration(
            "create_incomplete_consumers",
            functools.partial(create_incomplete_consumers, owner=owner),
        ),
    )


def count_missing_root_ids(engine: Engine) -> int:
    """Providers still lacking ``root_provider_id``."""
    rps = tables.resource_providers
    with db.reader(engine) as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(rps).where(rps.c.root_provider_id.is_(None))
        ).scalar_one()


def count_incomplete_consumers(engine: Engine) -> int:
    """Distinct allocation consumers without a ``consumers`` row."""
    allocs, consumers = tables.allocations, tables.consumers
    with db.reader(engine) as conn:
        return conn.execute(
            sa.select(sa.func.count(sa.distinct(allocs.c.consumer_id)))
            .select_from(allocs.outerjoin(consumers, allocs.c.consumer_id == consumers.c.uuid))
            .where(consumers.c.id.is_(None))
        ).scalar_one()
