"""Alembic environment for Placement, driven only by ``placement.db.migration``.

There is no ``alembic.ini``: :mod:`placement.db.migration` builds the alembic
``Config`` in code and hands us an open connection in
``config.attributes["connection"]``, made by our own engine, so migrations run
with the same per-backend setup as the application (foreign keys on and
``BEGIN`` emitted by us on SQLite, which is what makes its DDL transactional).
Each revision runs in its own transaction, so a revision that refuses to run
(see the two "block" revisions) leaves the database at the previous one.
Offline (SQL script) mode is not supported.
"""

from alembic import context

from placement.db import tables

config = context.config

if context.is_offline_mode():
    raise RuntimeError("Placement migrations cannot be rendered as SQL (offline mode).")

connection = config.attributes.get("connection")
if connection is None:
    raise RuntimeError("Run migrations through placement.db.migration (placement-manage db sync).")

context.configure(
    connection=connection,
    target_metadata=tables.metadata,
    transaction_per_migration=True,
    # SQLite cannot ALTER most things; batch operations rebuild the table.
    render_as_batch=True,
    # Our SQLite engine emits BEGIN itself, so DDL there is transactional too.
    transactional_ddl=True if connection.dialect.name == "sqlite" else None,
)

with context.begin_transaction():
    context.run_migrations()
