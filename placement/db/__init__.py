"""Database layer: the schema, engine creation, transactions and migrations.

Everything above this package talks to the database through these names::

    from placement import db

    engine = db.create_engine(conf)
    with db.writer(engine) as conn:
        conn.execute(...)
"""

from placement.db.engine import (
    causal_reads,
    create_engine,
    engine_from_url,
    readers_of,
    retry_policy_of,
    wait_for_database,
)
from placement.db.migration import (
    MigrationBlocked,
    current_revision,
    head_revision,
    stamp,
    upgrade,
)
from placement.db.retry import Budget, RetryPolicy
from placement.db.standard import sync_standard_names
from placement.db.transaction import (
    CommitInDoubt,
    is_conflict_db_error,
    is_retryable_db_error,
    is_unavailable_db_error,
    reader,
    run_in_transaction,
    writer,
)

__all__ = [
    "Budget",
    "CommitInDoubt",
    "causal_reads",
    "MigrationBlocked",
    "create_engine",
    "current_revision",
    "engine_from_url",
    "head_revision",
    "is_conflict_db_error",
    "is_retryable_db_error",
    "is_unavailable_db_error",
    "reader",
    "readers_of",
    "retry_policy_of",
    "RetryPolicy",
    "run_in_transaction",
    "stamp",
    "sync_standard_names",
    "upgrade",
    "wait_for_database",
    "writer",
]
