"""Explicit transactions and whole-transaction retries.

Use ``with writer(engine) as conn:`` around anything that writes and
``with reader(engine) as conn:`` around reads; each yields a
``sqlalchemy.Connection`` inside exactly one transaction that commits when the
block ends normally and rolls back when it raises. Do not nest them: the inner
block would get a second connection (and on SQLite a second writer would wait
for the first until the busy timeout expires).

Databases sometimes abort a perfectly good transaction: a deadlock victim, a
serialization failure, a lock wait timeout, a connection dropped by the
server, SQLite's "database is locked". The only safe reaction is to run the
*whole* transaction again, so retrying lives here, around the transaction
function, never around single statements: :func:`run_in_transaction`
opens the transaction itself and re-runs ``fn(conn)`` in a fresh one.

It retries only when :func:`is_retryable_db_error` says so, for as long as
the engine's :class:`~placement.db.retry.RetryPolicy` allows (a time budget
with jittered exponential back-off: Galera's certification conflicts come in
runs), then re-raises the last error. A caller that makes several
transactions of one piece of work (a claim) passes one ``budget`` to them all.

A transaction whose ``COMMIT`` lost its connection is different: the server
may have committed it before the connection broke, so running it again could
apply it twice. A writer raises :class:`CommitInDoubt`, never retried here
(the claim resolves it by reading back what landed, see
``placement.objects.claim_doubt``); a reader has nothing in doubt and raises the
lost connection as any other. :func:`is_unavailable_db_error` tells the API
which errors mean "the database cannot be reached" (503 with
``Retry-After``), :func:`is_conflict_db_error` which ones are a conflict the
retries did not outlast (409 ``placement.concurrent_update`` for a write,
503 for a read).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import sqlalchemy
from sqlalchemy.engine import Connection, Engine

from placement import metrics
from placement.db.engine import SQLITE_BEGIN_OPTION, readers_of, retry_policy_of
from placement.db.retry import Budget

LOG = logging.getLogger(__name__)

T = TypeVar("T")

#: MySQL/MariaDB error numbers worth a retry: deadlock (on Galera also a lost
#: certification), lock wait timeout, server gone away, lost connection
#: during query, MariaDB's "record has changed since last read" (snapshot
#: isolation conflict), and Galera's refusals of a node out of the primary
#: component, or still joining, that a proxy sent us to: "WSREP has not yet
#: prepared node for application use" and "Got error during COMMIT" (the
#: transaction was not committed).
MYSQL_RETRYABLE_ERRNOS = frozenset({1213, 1205, 2006, 2013, 1020, 1047, 1180})

#: PostgreSQL SQLSTATEs worth a retry: serialization failure, deadlock,
#: lock_timeout expiry. Class 08 (connection exceptions) is retried too.
PG_RETRYABLE_SQLSTATES = frozenset({"40001", "40P01", "55P03"})

#: MySQL/MariaDB error numbers meaning the server cannot be reached or went
#: away: can't connect (socket, TCP), server shutdown, gone away, lost
#: connection, connection killed, and the client's own broken-pipe codes.
MYSQL_UNAVAILABLE_ERRNOS = frozenset({2002, 2003, 1053, 2006, 2013, 2055, 1927, 4031})

#: PostgreSQL SQLSTATEs of a server that shut down or is still starting
#: (besides class 08, connection exceptions): admin_shutdown, crash_shutdown,
#: cannot_connect_now.
PG_UNAVAILABLE_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})

_SQLITE_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
_SQLITE_BUSY_TEXT = ("database is locked", "database table is locked", "database is busy")


@contextmanager
def writer(engine: Engine) -> Iterator[Connection]:
    """A connection in a read-write transaction (``BEGIN IMMEDIATE`` on SQLite)."""
    with _transaction(engine, "IMMEDIATE", commit_in_doubt=True) as conn:
        yield conn


@contextmanager
def reader(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction meant only for reading (deferred ``BEGIN``).

    On MySQL/MariaDB and PostgreSQL the reads run in autocommit instead,
    on connections of their own (see ``engine.readers_of``): at READ
    COMMITTED each statement of a transaction reads its own snapshot anyway,
    so a reader's ``BEGIN`` and ``ROLLBACK`` were round trips that bought
    nothing. Nothing may lock rows in a reader: a lock would not outlive
    its statement.
    """
    with _transaction(readers_of(engine), "DEFERRED", commit_in_doubt=False) as conn:
        yield conn


class CommitInDoubt(sqlalchemy.exc.OperationalError):
    """The connection broke during ``COMMIT``: the transaction may have been committed.

    Still an ``OperationalError`` (with the driver's error as ``orig``), so
    callers that wait out outages and check what was done afterwards, like
    the applier, treat it as before; :func:`run_in_transaction` does not
    re-run it.
    """


@contextmanager
def _transaction(
    engine: Engine, sqlite_begin: str, *, commit_in_doubt: bool
) -> Iterator[Connection]:
    """One transaction; ``commit_in_doubt``: a ``COMMIT`` that lost its
    connection raises :class:`CommitInDoubt` (a writer's could have landed)."""
    with engine.connect() as conn:
        conn.execution_options(**{SQLITE_BEGIN_OPTION: sqlite_begin})
        transaction = conn.begin()
        with transaction:
            yield conn
            try:
                transaction.commit()
            except sqlalchemy.exc.DBAPIError as exc:
                if not (commit_in_doubt and is_unavailable_db_error(exc)):
                    raise
                raise CommitInDoubt(
                    exc.statement,
                    exc.params,
                    exc.orig,  # type: ignore[arg-type]
                    connection_invalidated=exc.connection_invalidated,
                ) from exc


def is_retryable_db_error(exc: BaseException) -> bool:
    """True when ``exc`` means "the transaction was aborted, run it again".

    Accepts SQLAlchemy ``DBAPIError`` wrappers and bare driver exceptions.
    """
    if isinstance(exc, sqlalchemy.exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        orig: BaseException | None = exc.orig
    else:
        orig = exc
    if orig is None:
        return False
    if isinstance(orig, sqlite3.Error):
        code = getattr(orig, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _SQLITE_BUSY_CODES:
            return True
        return any(text in str(orig).lower() for text in _SQLITE_BUSY_TEXT)
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if isinstance(sqlstate, str):
        return sqlstate in PG_RETRYABLE_SQLSTATES or sqlstate.startswith("08")
    if _is_mysql_error(orig):
        args: tuple[object, ...] = getattr(orig, "args", ())
        return bool(args) and args[0] in MYSQL_RETRYABLE_ERRNOS
    return False


def is_unavailable_db_error(exc: BaseException) -> bool:
    """True when ``exc`` means the database server cannot be reached right now.

    A connection the pool found dead, a refused or timed-out connect, a
    server shutting down, crashed or still starting: errors that will pass
    when the server is back, unlike a bad statement or a constraint.
    """
    if not isinstance(exc, sqlalchemy.exc.DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    orig = exc.orig
    if orig is None or isinstance(orig, sqlite3.Error):
        return False
    if _is_mysql_error(orig):
        args: tuple[object, ...] = getattr(orig, "args", ())
        return bool(args) and args[0] in MYSQL_UNAVAILABLE_ERRNOS
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    if isinstance(sqlstate, str):
        return sqlstate.startswith("08") or sqlstate in PG_UNAVAILABLE_SQLSTATES
    # libpq reports a failed connect or a dropped connection without SQLSTATE.
    module = type(orig).__module__ or ""
    return isinstance(exc, sqlalchemy.exc.OperationalError) and module.startswith("psycopg")


def is_conflict_db_error(exc: BaseException) -> bool:
    """True when ``exc`` is a retryable abort that is no outage: a deadlock,
    a Galera certification conflict, a serialization failure, a lock wait
    timeout, SQLite's busy database. Reaching a client, it means the
    retries ran out under contention."""
    return is_retryable_db_error(exc) and not is_unavailable_db_error(exc)


def _is_mysql_error(exc: BaseException) -> bool:
    module = type(exc).__module__ or ""
    return module.startswith(("pymysql", "MySQLdb", "mysql", "mariadb"))


def run_in_transaction(
    engine: Engine,
    fn: Callable[[Connection], T],
    *,
    write: bool,
    budget: Budget | None = None,
) -> T:
    """Run ``fn(conn)`` in a writer (or reader) transaction, retrying it whole.

    ``fn`` may run several times, so it must not have side effects outside the
    database that a retry would repeat. Returns what ``fn`` returns.
    ``budget``: the retry time left to the caller's whole piece of work
    (None: a fresh one from the engine's policy).
    """
    transaction = writer if write else reader

    def once() -> T:
        with transaction(engine) as conn:
            return fn(conn)

    return _retry(once, budget or retry_policy_of(engine).budget())


def _retry(call: Callable[[], T], budget: Budget) -> T:
    """``call()``, run again after each retryable database error while ``budget`` lasts."""
    while True:
        try:
            return call()
        except sqlalchemy.exc.DBAPIError as exc:
            if isinstance(exc, CommitInDoubt) or not is_retryable_db_error(exc):
                raise
            pause = budget.next_pause()
            if pause is None:
                LOG.warning(
                    "Database retries ran out after %d attempts: %s", budget.attempts, exc.orig
                )
                raise
            LOG.debug(
                "Retryable database error (attempt %d), retrying in %.3f s: %s",
                budget.attempts - 1,
                pause,
                exc.orig,
            )
            metrics.server_retry(metrics.RETRY_DATABASE)
            time.sleep(pause)
