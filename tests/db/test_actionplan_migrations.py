"""The action-plan tables' own alembic environment, beside Placement's on one database.

What must hold: its head equals ``actionplan_tables``; running Placement's
migrations and ours in either order leaves ``alembic_version`` holding exactly
Placement's head (what ``placement-manage db version`` and upstream read);
``db sync`` creates both and writes the goal catalog.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from placement.cmd import manage
from placement.db import actionplan_tables, migration, tables
from placement.wsgi import create_app
from tests import rig

PLACEMENT_HEAD = "a082b8bb98d0"
ACTIONPLAN_TABLES = {
    "goals",
    "strategies",
    "audits",
    "action_plans",
    "actions",
    "powered_off_inventories",
    "audit_templates",
    "services",
    "scoring_engines",
}


def _versions(engine: sa.Engine, table: str) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text(f"SELECT version_num FROM {table}")).scalars())


def test_head_schema_equals_actionplan_tables(engine):
    migration.upgrade_actionplans(engine)
    opts = {"version_table": actionplan_tables.VERSION_TABLE, "compare_type": True}
    with engine.connect() as conn:
        diffs = compare_metadata(
            MigrationContext.configure(conn, opts=opts), actionplan_tables.metadata
        )
    assert diffs == []
    names = set(sa.inspect(engine).get_table_names())
    assert names == ACTIONPLAN_TABLES | {actionplan_tables.VERSION_TABLE}
    assert migration.actionplan_revision(engine) == migration.actionplan_head_revision()
    assert migration.current_revision(engine) is None  # Placement's version table untouched


@pytest.mark.parametrize("actionplans_first", [False, True], ids=["placement-first", "ours-first"])
def test_either_order_leaves_placement_revision_alone(engine, actionplans_first):
    steps = [migration.upgrade, migration.upgrade_actionplans]
    for step in reversed(steps) if actionplans_first else steps:
        step(engine)
    assert _versions(engine, "alembic_version") == [PLACEMENT_HEAD]
    assert migration.current_revision(engine) == PLACEMENT_HEAD
    assert _versions(engine, actionplan_tables.VERSION_TABLE) == [
        migration.actionplan_head_revision()
    ]
    names = set(sa.inspect(engine).get_table_names())
    assert names == set(tables.metadata.tables) | ACTIONPLAN_TABLES | {
        "alembic_version",
        actionplan_tables.VERSION_TABLE,
    }
    # Upgrading again (a second db sync, or Placement's alone) changes nothing.
    migration.upgrade_all(engine)
    assert _versions(engine, "alembic_version") == [PLACEMENT_HEAD]


def test_placement_schema_compares_clean_beside_ours(engine):
    """Placement's migrations still see exactly their schema (ours is not theirs to drop)."""
    migration.upgrade_all(engine)
    names = set(sa.inspect(engine).get_table_names()) - ACTIONPLAN_TABLES
    assert names - {actionplan_tables.VERSION_TABLE} == set(tables.metadata.tables) | {
        "alembic_version"
    }
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "include_name": lambda name, kind, _parents: (
                    kind != "table" or name in tables.metadata.tables
                )
            },
        )
        assert compare_metadata(context, tables.metadata) == []


def test_db_sync_creates_both_and_version_reads_placements(db_url, engine, tmp_path, capsys):
    conf_file = tmp_path / "placement.conf"
    conf_file.write_text(f"[placement_database]\nconnection = {db_url}\n")
    assert manage.main(["--config-file", str(conf_file), "db", "sync"]) == 0
    assert manage.main(["--config-file", str(conf_file), "db", "version"]) == 0
    assert capsys.readouterr().out.strip() == PLACEMENT_HEAD
    assert migration.actionplan_revision(engine) == migration.actionplan_head_revision()
    with engine.connect() as conn:
        goals = conn.execute(sa.select(sa.func.count()).select_from(actionplan_tables.goals))
        assert goals.scalar_one() > 0
    # A second sync is a no-op that still succeeds.
    assert manage.main(["--config-file", str(conf_file), "db", "sync"]) == 0


def test_start_up_sync_creates_both_and_the_catalog(db_url, engine):
    conf = rig.make_conf(db_url, placement_database={"sync_on_startup": True})
    app = create_app(conf)
    try:
        assert migration.current_revision(engine) == PLACEMENT_HEAD
        assert migration.actionplan_revision(engine) == migration.actionplan_head_revision()
        with engine.connect() as conn:
            names = conn.execute(sa.select(actionplan_tables.goals.c.name)).scalars().all()
        assert "unclassified" in names
    finally:
        app.placement_engine.dispose()


def test_app_serves_placement_on_a_database_without_action_plan_tables(db_url, engine, caplog):
    """A database only upstream (or an older release) synced: Placement works, /v1 waits."""
    migration.upgrade(engine)
    app = create_app(rig.make_conf(db_url))
    try:
        status, body = rig.call(app, "GET", "/resource_providers")
        assert (status, body) == (200, {"resource_providers": []})
        assert migration.actionplan_revision(engine) is None
        assert "placement-manage db sync" in caplog.text
    finally:
        app.placement_engine.dispose()
