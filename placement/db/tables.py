"""The Placement schema at alembic head, as SQLAlchemy Core tables.

This module is the single description of the schema the application code
queries. It must match what the alembic revisions in
``placement/db/migrations/versions`` produce, column for column and index for
index, because operators may point us at a database that upstream Placement
created; ``tests/db`` checks that a migrated database reflects back to
exactly this metadata.

Facts worth knowing before writing queries:

* ``allocations.consumer_id`` holds the consumer's *uuid*, not ``consumers.id``.
* ``consumers.project_id`` / ``user_id`` point at ``projects.id`` / ``users.id``
  without a foreign key; ``inventories``, ``allocations`` and
  ``resource_provider_aggregates`` have no foreign keys either.
* ``resource_classes.id`` is assigned by the application (standard classes
  0..N-1 by their position in ``os_resource_classes.STANDARDS``, custom classes
  from 10000 up), so it is not an autoincrement column.
* ``created_at`` / ``updated_at`` are naive UTC timestamps filled in on the
  Python side, as upstream's models did.
"""

from __future__ import annotations

import datetime

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Unicode,
    UniqueConstraint,
    text,
)


def utcnow() -> datetime.datetime:
    """Current time as a naive UTC datetime (the format the schema stores)."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _timestamps() -> list[Column]:
    """The two audit columns every table carries, with Python-side defaults."""
    return [
        Column("created_at", DateTime, nullable=True, default=utcnow),
        Column("updated_at", DateTime, nullable=True, onupdate=utcnow),
    ]


metadata = MetaData()

resource_providers = Table(
    "resource_providers",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("uuid", String(36), nullable=False),
    Column("name", Unicode(200), nullable=True),
    Column("generation", Integer, nullable=True, default=0),
    Column("root_provider_id", Integer, ForeignKey("resource_providers.id"), nullable=True),
    Column("parent_provider_id", Integer, ForeignKey("resource_providers.id"), nullable=True),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("uuid", name="uniq_resource_providers0uuid"),
    UniqueConstraint("name", name="uniq_resource_providers0name"),
    Index("resource_providers_root_provider_id_idx", "root_provider_id"),
    Index("resource_providers_parent_provider_id_idx", "parent_provider_id"),
)

inventories = Table(
    "inventories",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("resource_provider_id", Integer, nullable=False),
    Column("resource_class_id", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("reserved", Integer, nullable=False),
    Column("min_unit", Integer, nullable=False),
    Column("max_unit", Integer, nullable=False),
    Column("step_size", Integer, nullable=False),
    Column("allocation_ratio", Float, nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint(
        "resource_provider_id",
        "resource_class_id",
        name="uniq_inventories0resource_provider_resource_class",
    ),
    Index("inventories_resource_class_id_idx", "resource_class_id"),
)

allocations = Table(
    "allocations",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("resource_provider_id", Integer, nullable=False),
    Column("consumer_id", String(36), nullable=False),
    Column("resource_class_id", Integer, nullable=False),
    Column("used", Integer, nullable=False),
    PrimaryKeyConstraint("id"),
    Index(
        "allocations_resource_provider_class_used_idx",
        "resource_provider_id",
        "resource_class_id",
        "used",
    ),
    Index("allocations_resource_class_id_idx", "resource_class_id"),
    Index("allocations_consumer_id_idx", "consumer_id"),
)

consumer_types = Table(
    "consumer_types",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("name", Unicode(255), nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("name", name="uniq_consumer_types0name"),
)

consumers = Table(
    "consumers",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("uuid", String(36), nullable=False),
    Column("project_id", Integer, nullable=False),
    Column("user_id", Integer, nullable=False),
    Column("generation", Integer, nullable=False, server_default=text("0"), default=0),
    Column("consumer_type_id", Integer, nullable=True),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("uuid", name="uniq_consumers0uuid"),
    ForeignKeyConstraint(
        ["consumer_type_id"], ["consumer_types.id"], name="consumers_consumer_type_id_fkey"
    ),
    Index("consumers_project_id_uuid_idx", "project_id", "uuid"),
    Index("consumers_project_id_user_id_uuid_idx", "project_id", "user_id", "uuid"),
    Index("consumers_consumer_type_id_idx", "consumer_type_id"),
)

projects = Table(
    "projects",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("external_id", String(255), nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("external_id", name="uniq_projects0external_id"),
)

users = Table(
    "users",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("external_id", String(255), nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("external_id", name="uniq_users0external_id"),
)

resource_classes = Table(
    "resource_classes",
    metadata,
    *_timestamps(),
    # App-assigned ids: no AUTO_INCREMENT / SERIAL / IDENTITY anywhere.
    Column("id", Integer, nullable=False, autoincrement=False),
    Column("name", String(255), nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("name", name="uniq_resource_classes0name"),
)

traits = Table(
    "traits",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("name", Unicode(255), nullable=False),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("name", name="uniq_traits0name"),
)

resource_provider_traits = Table(
    "resource_provider_traits",
    metadata,
    *_timestamps(),
    Column("trait_id", Integer, ForeignKey("traits.id"), nullable=False),
    Column("resource_provider_id", Integer, ForeignKey("resource_providers.id"), nullable=False),
    PrimaryKeyConstraint("trait_id", "resource_provider_id"),
    Index(
        "resource_provider_traits_resource_provider_trait_idx",
        "resource_provider_id",
        "trait_id",
    ),
)

placement_aggregates = Table(
    "placement_aggregates",
    metadata,
    *_timestamps(),
    Column("id", Integer, nullable=False),
    Column("uuid", String(36), nullable=True),
    PrimaryKeyConstraint("id"),
    UniqueConstraint("uuid", name="uniq_placement_aggregates0uuid"),
)

resource_provider_aggregates = Table(
    "resource_provider_aggregates",
    metadata,
    *_timestamps(),
    Column("resource_provider_id", Integer, nullable=False),
    Column("aggregate_id", Integer, nullable=False),
    PrimaryKeyConstraint("resource_provider_id", "aggregate_id"),
    Index("resource_provider_aggregates_aggregate_id_idx", "aggregate_id"),
)
