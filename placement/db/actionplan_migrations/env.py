"""Alembic environment of the action-plan tables, driven by ``placement.db.migration``.

A second environment beside Placement's: its revisions are recorded in
``actionplan_alembic_version``, so upgrading it never changes the revision
upstream Placement reads from ``alembic_version``. Like Placement's, it runs
on a connection our own engine made (handed over in
``config.attributes["connection"]``), one transaction per revision, online only.
"""

from alembic import context

from placement.db import actionplan_tables

connection = context.config.attributes.get("connection")
if context.is_offline_mode() or connection is None:
    raise RuntimeError("Run action-plan migrations through placement.db.migration (db sync).")

context.configure(
    connection=connection,
    target_metadata=actionplan_tables.metadata,
    version_table=actionplan_tables.VERSION_TABLE,
    transaction_per_migration=True,
    transactional_ddl=True if connection.dialect.name == "sqlite" else None,
)

with context.begin_transaction():
    context.run_migrations()
