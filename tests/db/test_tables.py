"""The Core tables say what the schema section of the reference says."""

from __future__ import annotations

import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql
from sqlalchemy.schema import CreateTable

from placement.db import engine_from_url, tables, writer

TABLE_NAMES = {
    "resource_providers",
    "inventories",
    "allocations",
    "consumers",
    "consumer_types",
    "projects",
    "users",
    "resource_classes",
    "traits",
    "resource_provider_traits",
    "placement_aggregates",
    "resource_provider_aggregates",
}

# table -> (primary key, {unique name: columns}, {index name: columns})
EXPECTED = {
    "resource_providers": (
        ["id"],
        {"uniq_resource_providers0uuid": ["uuid"], "uniq_resource_providers0name": ["name"]},
        {
            "resource_providers_root_provider_id_idx": ["root_provider_id"],
            "resource_providers_parent_provider_id_idx": ["parent_provider_id"],
        },
    ),
    "inventories": (
        ["id"],
        {
            "uniq_inventories0resource_provider_resource_class": [
                "resource_provider_id",
                "resource_class_id",
            ]
        },
        {"inventories_resource_class_id_idx": ["resource_class_id"]},
    ),
    "allocations": (
        ["id"],
        {},
        {
            "allocations_resource_provider_class_used_idx": [
                "resource_provider_id",
                "resource_class_id",
                "used",
            ],
            "allocations_resource_class_id_idx": ["resource_class_id"],
            "allocations_consumer_id_idx": ["consumer_id"],
        },
    ),
    "consumers": (
        ["id"],
        {"uniq_consumers0uuid": ["uuid"]},
        {
            "consumers_project_id_uuid_idx": ["project_id", "uuid"],
            "consumers_project_id_user_id_uuid_idx": ["project_id", "user_id", "uuid"],
            "consumers_consumer_type_id_idx": ["consumer_type_id"],
        },
    ),
    "consumer_types": (["id"], {"uniq_consumer_types0name": ["name"]}, {}),
    "projects": (["id"], {"uniq_projects0external_id": ["external_id"]}, {}),
    "users": (["id"], {"uniq_users0external_id": ["external_id"]}, {}),
    "resource_classes": (["id"], {"uniq_resource_classes0name": ["name"]}, {}),
    "traits": (["id"], {"uniq_traits0name": ["name"]}, {}),
    "resource_provider_traits": (
        ["trait_id", "resource_provider_id"],
        {},
        {
            "resource_provider_traits_resource_provider_trait_idx": [
                "resource_provider_id",
                "trait_id",
            ]
        },
    ),
    "placement_aggregates": (["id"], {"uniq_placement_aggregates0uuid": ["uuid"]}, {}),
    "resource_provider_aggregates": (
        ["resource_provider_id", "aggregate_id"],
        {},
        {"resource_provider_aggregates_aggregate_id_idx": ["aggregate_id"]},
    ),
}

NULLABLE = {
    ("resource_providers", "name"),
    ("resource_providers", "generation"),
    ("resource_providers", "root_provider_id"),
    ("resource_providers", "parent_provider_id"),
    ("consumers", "consumer_type_id"),
    ("placement_aggregates", "uuid"),
}


def test_every_table_is_a_module_attribute():
    assert set(tables.metadata.tables) == TABLE_NAMES
    for name in TABLE_NAMES:
        assert getattr(tables, name) is tables.metadata.tables[name]


@pytest.mark.parametrize("name", sorted(TABLE_NAMES))
def test_keys_constraints_and_indexes(name):
    table = tables.metadata.tables[name]
    pk, uniques, indexes = EXPECTED[name]
    assert [c.name for c in table.primary_key.columns] == pk
    found_uniques = {
        c.name: [col.name for col in c.columns]
        for c in table.constraints
        if isinstance(c, sa.UniqueConstraint)
    }
    assert found_uniques == uniques
    assert {i.name: [c.name for c in i.columns] for i in table.indexes} == indexes


@pytest.mark.parametrize("name", sorted(TABLE_NAMES))
def test_nullability_and_timestamps(name):
    table = tables.metadata.tables[name]
    for column in table.columns:
        if column.name in ("created_at", "updated_at"):
            assert column.nullable and isinstance(column.type, sa.DateTime)
        else:
            assert column.nullable == ((name, column.name) in NULLABLE), column
    assert table.c.created_at.default is not None
    assert table.c.updated_at.onupdate is not None


def test_foreign_keys():
    def fks(table):
        return {
            (fk.name, fk.parent.name, fk.column.table.name, fk.column.name)
            for fk in table.foreign_keys
        }

    assert fks(tables.resource_providers) == {
        (None, "root_provider_id", "resource_providers", "id"),
        (None, "parent_provider_id", "resource_providers", "id"),
    }
    assert fks(tables.resource_provider_traits) == {
        (None, "trait_id", "traits", "id"),
        (None, "resource_provider_id", "resource_providers", "id"),
    }
    assert fks(tables.consumers) == {
        ("consumers_consumer_type_id_fkey", "consumer_type_id", "consumer_types", "id"),
    }
    for name in ("inventories", "allocations", "resource_provider_aggregates"):
        assert fks(tables.metadata.tables[name]) == set()


def test_types():
    assert isinstance(tables.resource_providers.c.name.type, sa.Unicode)
    assert tables.resource_providers.c.name.type.length == 200
    assert isinstance(tables.traits.c.name.type, sa.Unicode)
    assert isinstance(tables.consumer_types.c.name.type, sa.Unicode)
    assert isinstance(tables.inventories.c.allocation_ratio.type, sa.Float)
    assert tables.allocations.c.consumer_id.type.length == 36
    assert tables.resource_classes.c.name.type.length == 255


def test_resource_class_ids_are_not_autoincrement():
    assert tables.resource_classes.autoincrement_column is None
    assert tables.resource_providers.autoincrement_column is tables.resource_providers.c.id
    mysql_ddl = str(CreateTable(tables.resource_classes).compile(dialect=mysql.dialect()))
    assert "AUTO_INCREMENT" not in mysql_ddl
    pg_ddl = str(CreateTable(tables.resource_classes).compile(dialect=postgresql.dialect()))
    assert "SERIAL" not in pg_ddl and "IDENTITY" not in pg_ddl
    assert "AUTO_INCREMENT" in str(CreateTable(tables.traits).compile(dialect=mysql.dialect()))


def test_python_side_defaults():
    engine = engine_from_url("sqlite://")
    tables.metadata.create_all(engine)
    before = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with writer(engine) as conn:
        conn.execute(sa.insert(tables.resource_providers), {"uuid": "a" * 36, "name": "rp"})
        conn.execute(sa.insert(tables.consumers), {"uuid": "c" * 36, "project_id": 1, "user_id": 1})
    with writer(engine) as conn:
        rp = conn.execute(sa.select(tables.resource_providers)).one()
        assert rp.generation == 0
        assert rp.created_at.tzinfo is None and rp.created_at >= before
        assert rp.updated_at is None
        assert conn.execute(sa.select(tables.consumers.c.generation)).scalar() == 0
        conn.execute(sa.update(tables.resource_providers).values(generation=1))
        rp = conn.execute(sa.select(tables.resource_providers)).one()
        assert rp.updated_at is not None and rp.updated_at >= rp.created_at
    engine.dispose()
