"""Standard resource classes and traits: idempotent, race-safe sync."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import os_resource_classes
import os_traits
import pytest
import sqlalchemy as sa

import placement
from placement import db
from placement.db import engine as db_engine
from placement.db import standard, tables
from tests.rig import run_together

REPO_ROOT = Path(placement.__file__).resolve().parent.parent


def _rows(engine):
    with db.reader(engine) as conn:
        classes = conn.execute(
            sa.select(tables.resource_classes.c.id, tables.resource_classes.c.name)
        ).all()
        traits = conn.execute(sa.select(tables.traits.c.name)).scalars().all()
    return sorted(classes), sorted(traits)


def _assert_exactly_standard(engine):
    classes, traits = _rows(engine)
    assert classes == list(enumerate(os_resource_classes.STANDARDS))
    assert traits == sorted(os_traits.get_traits())


def test_sync_inserts_everything_once(migrated_engine):
    db.sync_standard_names(migrated_engine)
    _assert_exactly_standard(migrated_engine)
    with db.reader(migrated_engine) as conn:
        stamps = conn.execute(sa.select(tables.traits.c.created_at)).scalars().all()
    assert all(stamps)
    db.sync_standard_names(migrated_engine)
    _assert_exactly_standard(migrated_engine)


def test_nothing_missing_costs_one_select_per_table(migrated_engine):
    db.sync_standard_names(migrated_engine)
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        if "resource_classes" in statement or "traits" in statement:
            statements.append(statement.split()[0].upper())

    engines = {migrated_engine, db.readers_of(migrated_engine)}  # reads use the readers'
    for engine in engines:
        sa.event.listen(engine, "before_cursor_execute", record)
    try:
        db.sync_standard_names(migrated_engine)
    finally:
        for engine in engines:
            sa.event.remove(engine, "before_cursor_execute", record)
    assert statements == ["SELECT", "SELECT"]


def test_only_missing_names_are_added(migrated_engine):
    db.sync_standard_names(migrated_engine)
    with db.writer(migrated_engine) as conn:
        conn.execute(sa.delete(tables.traits).where(tables.traits.c.name.like("HW_CPU_X86_%")))
        conn.execute(
            sa.delete(tables.resource_classes).where(tables.resource_classes.c.id.in_([0, 5]))
        )
        conn.execute(sa.insert(tables.traits), {"name": "CUSTOM_KEEP_ME"})
        conn.execute(sa.insert(tables.resource_classes), {"id": 10000, "name": "CUSTOM_GOLD"})
    db.sync_standard_names(migrated_engine)
    classes, traits = _rows(migrated_engine)
    assert classes == [*enumerate(os_resource_classes.STANDARDS), (10000, "CUSTOM_GOLD")]
    assert traits == sorted([*os_traits.get_traits(), "CUSTOM_KEEP_ME"])


def test_standard_id_taken_by_another_name(migrated_engine):
    with db.writer(migrated_engine) as conn:
        conn.execute(sa.insert(tables.resource_classes), {"id": 3, "name": "CUSTOM_SQUATTER"})
    with pytest.raises(standard.StandardNameConflict, match="id 3"):
        db.sync_standard_names(migrated_engine)


def test_a_reader_that_never_catches_up_does_not_stall_the_sync(tmp_path):
    """Behind a proxy spreading connections over a Galera cluster, the readers'
    pool may sit on a node that has not yet applied what the writer committed
    through another. Here the readers' engine is a second database that never
    gets the rows: what to insert is decided on the writer's connection, so the
    sync still ends, each row there once."""
    node1, node2 = (db.engine_from_url(f"sqlite:///{tmp_path / name}") for name in "ab")
    try:
        for engine in (node1, node2):
            db.upgrade(engine)
        db_engine._READERS[node1] = node2  # what readers_of(node1) hands out
        db.sync_standard_names(node1)
        with node1.connect() as conn:
            classes = conn.execute(sa.select(tables.resource_classes.c.name)).scalars().all()
            traits = conn.execute(sa.select(tables.traits.c.name)).scalars().all()
        assert sorted(classes) == sorted(os_resource_classes.STANDARDS)
        assert sorted(traits) == sorted(os_traits.get_traits())
    finally:
        node1.dispose()
        node2.dispose()


def test_concurrent_threads(migrated_engine, db_url):
    """Eight engines (as eight processes would have) sync at the same instant."""
    engines = [db.engine_from_url(db_url) for _ in range(8)]
    results = run_together(len(engines), lambda i: db.sync_standard_names(engines[i]))
    for engine in engines:
        engine.dispose()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    _assert_exactly_standard(migrated_engine)


_WORKER = """
import os, sys, time
from placement import db
url, rendezvous, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
engine = db.engine_from_url(url)
open(os.path.join(rendezvous, str(os.getpid())), "w").close()
deadline = time.monotonic() + 30
while len(os.listdir(rendezvous)) < count and time.monotonic() < deadline:
    time.sleep(0.005)
db.sync_standard_names(engine)
engine.dispose()
"""


def test_concurrent_processes(migrated_engine, db_url, tmp_path):
    """Three processes, each done importing, sync at the same moment."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    count = 3
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, db_url, str(tmp_path), str(count)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    results = [(proc.communicate(timeout=60)[1], proc.returncode) for proc in procs]
    assert results == [("", 0)] * count
    _assert_exactly_standard(migrated_engine)


def test_mysql_auto_increment_id_zero(migrated_engine, backend):
    """Databases made by upstream have AUTO_INCREMENT ids; id 0 must still be 0."""
    if backend != "mysql":
        pytest.skip("MySQL only")
    with migrated_engine.begin() as conn:
        conn.exec_driver_sql(
            "ALTER TABLE resource_classes MODIFY id INTEGER NOT NULL AUTO_INCREMENT"
        )
    engine = db.engine_from_url(migrated_engine.url, pool_size=1, max_overflow=0)
    try:
        db.sync_standard_names(engine)
        with engine.connect() as conn:  # the pool's only connection: the one used above
            mode = conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar()
        assert "NO_AUTO_VALUE_ON_ZERO" not in mode
    finally:
        engine.dispose()
    _assert_exactly_standard(migrated_engine)
