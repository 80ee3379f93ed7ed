"""Alembic revisions: upstream's ids and order, and a head equal to tables.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import make_url

import placement
from placement import db
from placement.db import migration, tables

UPSTREAM_REVISIONS = [
    "b4ed3a175331",
    "611cd6dffd7b",
    "b5c396305c25",
    "422ece571366",
    "a082b8bb98d0",
]
HEAD = "a082b8bb98d0"
REDUNDANT_INDEXES = {
    ("inventories", "inventories_resource_provider_id_idx"),
    ("inventories", "inventories_resource_provider_resource_class_idx"),
    ("placement_aggregates", "ix_placement_aggregates_uuid"),
    ("resource_providers", "resource_providers_name_idx"),
    ("resource_providers", "resource_providers_uuid_idx"),
}
REPO_ROOT = Path(placement.__file__).resolve().parent.parent


def _index_names(engine: sa.Engine) -> set[tuple[str, str]]:
    inspector = sa.inspect(engine)
    return {
        (table, index["name"])
        for table in inspector.get_table_names()
        for index in inspector.get_indexes(table)
    }


def test_revisions_are_upstreams_in_order():
    assert migration.revisions() == UPSTREAM_REVISIONS
    assert migration.head_revision() == HEAD


def test_head_schema_equals_tables(migrated_engine):
    assert db.current_revision(migrated_engine) == HEAD
    with migrated_engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), tables.metadata)
    assert diffs == []
    names = set(sa.inspect(migrated_engine).get_table_names())
    assert names == set(tables.metadata.tables) | {"alembic_version"}


def test_initial_revision_has_the_indexes_head_drops(engine):
    assert db.current_revision(engine) is None
    db.upgrade(engine, "b4ed3a175331")
    assert db.current_revision(engine) == "b4ed3a175331"
    assert REDUNDANT_INDEXES <= _index_names(engine)
    assert "consumer_types" not in sa.inspect(engine).get_table_names()
    db.upgrade(engine)
    assert not REDUNDANT_INDEXES & _index_names(engine)


def test_blocked_by_provider_without_root(engine):
    db.upgrade(engine, "b4ed3a175331")
    providers = sa.table(
        "resource_providers", sa.column("id"), sa.column("uuid"), sa.column("root_provider_id")
    )
    with db.writer(engine) as conn:
        conn.execute(sa.insert(providers).values(id=1, uuid="1" * 36))
    with pytest.raises(db.MigrationBlocked, match="root_provider_id"):
        db.upgrade(engine)
    assert db.current_revision(engine) == "b4ed3a175331"
    with db.writer(engine) as conn:
        conn.execute(sa.update(providers).values(root_provider_id=1))
    db.upgrade(engine)
    assert db.current_revision(engine) == HEAD


def test_blocked_by_allocation_without_consumer(engine):
    db.upgrade(engine, "611cd6dffd7b")
    allocations = sa.table(
        "allocations",
        sa.column("resource_provider_id"),
        sa.column("consumer_id"),
        sa.column("resource_class_id"),
        sa.column("used"),
    )
    with db.writer(engine) as conn:
        conn.execute(
            sa.insert(allocations).values(
                resource_provider_id=1, consumer_id="c" * 36, resource_class_id=0, used=1
            )
        )
    with pytest.raises(db.MigrationBlocked, match="consumers"):
        db.upgrade(engine)
    assert db.current_revision(engine) == "611cd6dffd7b"
    consumers = sa.table(
        "consumers", sa.column("uuid"), sa.column("project_id"), sa.column("user_id")
    )
    with db.writer(engine) as conn:
        conn.execute(sa.insert(consumers).values(uuid="c" * 36, project_id=1, user_id=1))
    db.upgrade(engine)
    assert db.current_revision(engine) == HEAD


def test_consumer_type_column_keeps_existing_consumers(engine):
    db.upgrade(engine, "b5c396305c25")
    consumers = sa.table(
        "consumers",
        sa.column("uuid"),
        sa.column("project_id"),
        sa.column("user_id"),
        sa.column("generation"),
    )
    with db.writer(engine) as conn:
        conn.execute(sa.insert(consumers).values(uuid="c" * 36, project_id=3, user_id=4))
    db.upgrade(engine, "422ece571366")
    with db.reader(engine) as conn:
        row = conn.execute(sa.select(tables.consumers)).one()
    assert (row.uuid, row.project_id, row.user_id, row.generation) == ("c" * 36, 3, 4, 0)
    assert row.consumer_type_id is None
    # The foreign key is real: an unknown type id is refused.
    with pytest.raises(sa.exc.IntegrityError), db.writer(engine) as conn:
        conn.execute(sa.update(tables.consumers).values(consumer_type_id=99))


def test_stamp(engine):
    assert db.current_revision(engine) is None
    db.stamp(engine, HEAD)
    assert db.current_revision(engine) == HEAD
    db.stamp(engine, "b4ed3a175331")
    assert db.current_revision(engine) == "b4ed3a175331"


def _manage(tmp_path: Path, connection: str, *args: str, extra: str = ""):
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = {connection}\n{extra}")
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return subprocess.run(
        [sys.executable, "-m", "placement.cmd.manage", "--config-file", str(conf), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def _named(url: str) -> str:
    """What placement-manage says on stderr about the database it acts on."""
    return f"placement-manage: database {make_url(url).render_as_string(hide_password=True)}\n"


def test_manage_db_sync_and_version(db_url, tmp_path):
    result = _manage(tmp_path, db_url, "db", "sync")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", _named(db_url))
    result = _manage(tmp_path, db_url, "db", "version")
    assert (result.returncode, result.stdout) == (0, f"{HEAD}\n")


def test_manage_db_stamp(tmp_path):
    url = f"sqlite:///{tmp_path / 'p.sqlite'}"
    result = _manage(tmp_path, url, "db", "version")
    assert (result.returncode, result.stdout, result.stderr) == (0, "None\n", _named(url))
    result = _manage(tmp_path, url, "db", "stamp", "422ece571366")
    assert result.returncode == 0, result.stderr
    assert _manage(tmp_path, url, "db", "version").stdout == "422ece571366\n"
    result = _manage(tmp_path, url, "db", "stamp", "nope")
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_manage_unreachable_database(tmp_path):
    result = _manage(
        tmp_path,
        "mysql+pymysql://placement:secret@127.0.0.1:1/placement",
        "db",
        "sync",
        extra="max_retries = 0\n",
    )
    assert result.returncode == 1
    named, error = result.stderr.splitlines()
    assert named == "placement-manage: database mysql+pymysql://placement:***@127.0.0.1:1/placement"
    assert error.startswith("placement-manage: error:")
    assert "secret" not in result.stderr


def test_manage_db_without_command(tmp_path):
    result = _manage(tmp_path, f"sqlite:///{tmp_path / 'p.sqlite'}", "db")
    assert result.returncode == 1
    assert "sync" in result.stdout and "version" in result.stdout
