"""Insert the standard resource classes and traits the libraries define.

Every API process calls :func:`sync_standard_names` at start-up, and several
may start at the same moment against the same database, so the sync must
tolerate losing races: it reads what exists (one SELECT per table, which is
all it does when nothing is missing) and inserts the rest in one statement
that skips rows another process inserted meanwhile (``ON CONFLICT DO
NOTHING`` on PostgreSQL and SQLite, ``INSERT IGNORE`` on MySQL), so nobody's
transaction is aborted by a duplicate. The read that decides what to insert
runs in the inserting transaction, so the commit settles it; a duplicate
error from any other backend, a deadlock or a lock timeout just means another
round. Existing rows are never deleted or renamed.

Standard resource class ids are their positions in
``os_resource_classes.STANDARDS``; on MySQL inserting id 0 into what may be
an AUTO_INCREMENT column (databases created by upstream Placement) needs
``NO_AUTO_VALUE_ON_ZERO``, which we add to the session's ``sql_mode`` for the
insert only.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import os_resource_classes
import os_traits
import sqlalchemy
from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from placement.db import tables
from placement.db.engine import retry_policy_of
from placement.db.transaction import is_retryable_db_error, reader, writer

LOG = logging.getLogger(__name__)


class StandardNameConflict(RuntimeError):
    """A standard resource class id is taken by a different name."""


def sync_standard_names(engine: Engine) -> None:
    """Make sure every standard resource class and trait has its row."""
    _sync(engine, _missing_resource_classes, _insert_resource_classes, "resource classes")
    _sync(engine, _missing_traits, _insert_traits, "traits")


def _sync(
    engine: Engine,
    find_missing: Callable[[Connection], list[dict]],
    insert_rows: Callable[[Connection, list[dict]], None],
    what: str,
) -> None:
    with reader(engine) as conn:
        if not find_missing(conn):
            return  # what every start but the first finds: one SELECT
    budget = retry_policy_of(engine).budget()
    while True:
        try:
            _fill_in(engine, find_missing, insert_rows, what)
            return
        except sqlalchemy.exc.DBAPIError as exc:
            # A duplicate, deadlock or lock timeout (on Galera, a lost
            # certification) is another process's insert: try again, within
            # the engine's retry budget ([placement_database] db_max_retry_time).
            duplicate = isinstance(exc, sqlalchemy.exc.IntegrityError)
            pause = budget.next_pause() if duplicate or is_retryable_db_error(exc) else None
            if pause is None:
                raise
            LOG.debug("Standard %s sync raced another process (%s); retrying", what, exc.orig)
            time.sleep(pause)


def _fill_in(
    engine: Engine,
    find_missing: Callable[[Connection], list[dict]],
    insert_rows: Callable[[Connection, list[dict]], None],
    what: str,
) -> None:
    """Insert what is missing, read and written in one transaction.

    Read on the writer's connection, not the readers': behind a proxy
    spreading connections over a Galera cluster, a reader may sit on a node
    that has not yet applied rows committed through another, and would see
    them missing however often it asked. Once this commits, every row is
    there (rows inserted meanwhile by others were skipped, not duplicated).
    """
    with writer(engine) as conn:
        missing = find_missing(conn)
        if missing:
            insert_rows(conn, missing)
    if missing:
        LOG.info("Added up to %d standard %s", len(missing), what)


def _insert_missing(conn: Connection, table: sqlalchemy.Table) -> sqlalchemy.Insert:
    """An INSERT that skips rows whose unique keys already exist."""
    dialect = conn.dialect.name
    if dialect == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    if dialect == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing()
    if dialect in ("mysql", "mariadb"):
        return insert(table).prefix_with("IGNORE")
    return insert(table)


def _missing_resource_classes(conn: Connection) -> list[dict]:
    rc = tables.resource_classes
    by_id = dict(conn.execute(select(rc.c.id, rc.c.name)).all())
    present = set(by_id.values())
    missing = []
    for index, name in enumerate(os_resource_classes.STANDARDS):
        if name in present:
            continue
        if index in by_id:
            raise StandardNameConflict(
                f"resource_classes id {index} belongs to {by_id[index]!r}, "
                f"but standard resource class {name!r} needs that id"
            )
        missing.append({"id": index, "name": name})
    return missing


def _insert_resource_classes(conn: Connection, rows: list[dict]) -> None:
    with _no_auto_value_on_zero(conn):
        conn.execute(_insert_missing(conn, tables.resource_classes), rows)


def _missing_traits(conn: Connection) -> list[dict]:
    present = set(conn.execute(select(tables.traits.c.name)).scalars())
    return [{"name": name} for name in sorted(set(os_traits.get_traits()) - present)]


def _insert_traits(conn: Connection, rows: list[dict]) -> None:
    conn.execute(_insert_missing(conn, tables.traits), rows)


@contextmanager
def _no_auto_value_on_zero(conn: Connection) -> Iterator[None]:
    """On MySQL, let an explicit id 0 be stored as 0 for the enclosed statements."""
    if conn.dialect.name not in ("mysql", "mariadb"):
        yield
        return
    previous = conn.execute(sqlalchemy.text("SELECT @@SESSION.sql_mode")).scalar() or ""
    modes = [mode for mode in previous.split(",") if mode]
    if "NO_AUTO_VALUE_ON_ZERO" in modes:
        yield
        return
    new_mode = ",".join([*modes, "NO_AUTO_VALUE_ON_ZERO"])
    conn.execute(sqlalchemy.text("SET SESSION sql_mode = :mode"), {"mode": new_mode})
    try:
        yield
    finally:
        try:
            conn.execute(sqlalchemy.text("SET SESSION sql_mode = :mode"), {"mode": previous})
        except sqlalchemy.exc.DBAPIError:
            # Never hand a connection with an altered session back to the pool.
            conn.invalidate()
