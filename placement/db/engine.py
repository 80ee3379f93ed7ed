"""Engine creation: one ``sqlalchemy.Engine`` per process, tuned per backend.

Why each backend is set up the way it is:

SQLite
    The pysqlite driver's own transaction handling is switched off
    (``isolation_level = None``) and we emit ``BEGIN`` ourselves from the
    engine's ``begin`` event, as the SQLAlchemy documentation recommends.
    That makes DDL transactional and lets a *writer* take SQLite's write lock
    at the start of its transaction with ``BEGIN IMMEDIATE``: a deferred
    transaction that reads and later writes can fail at once with "database
    is locked" when another writer got there first (the busy handler cannot
    help an upgrade from a read lock), while ``BEGIN IMMEDIATE`` simply waits
    up to the busy timeout. Readers use plain (deferred) ``BEGIN`` and, thanks
    to WAL, never block writers nor wait for them. Which ``BEGIN`` to emit is
    read from the connection's execution option :data:`SQLITE_BEGIN_OPTION`,
    which :func:`placement.db.transaction.writer` sets.
    Foreign keys are enforced on every connection (SQLite's default is off).

MySQL / MariaDB
    ``utf8mb4`` unless the URL names a charset, the configured session
    ``sql_mode``, a large ``group_concat_max_len`` and, on MariaDB, long
    ``IN`` lists kept as lists (see :data:`MARIADB_IN_LISTS`) on every new
    connection, a ping of idle connections (see *Outages*) and recycling so
    connections killed by ``wait_timeout`` are not handed out. On Galera,
    ``[placement_database] mysql_wsrep_sync_wait`` (oslo.db's option) sets
    the session's ``wsrep_sync_wait`` on every connection of both pools, so
    reads can be made to wait for writes committed through other nodes;
    :func:`causal_reads` does so for one block whatever the option says.
    The isolation level is ``READ COMMITTED``: it matches PostgreSQL's
    default so both behave the same; our writes rely on compare-and-swap
    ``UPDATE ... WHERE generation = :g`` rather than on snapshot reads; a
    re-read inside a transaction (e.g. retrying a custom resource class id
    after a duplicate) sees rows committed meanwhile instead of a stale
    REPEATABLE READ snapshot; and InnoDB takes no gap locks, which removes a
    whole family of insert deadlocks.

PostgreSQL
    Both ``postgresql+psycopg://`` and ``postgresql+psycopg2://`` work as
    SQLAlchemy provides them. libpq waits for a connect forever by default,
    so ``connect_timeout`` is set (unless the URL names one), as PyMySQL's
    own default already does for MySQL. Sessions run with ``jit`` off
    (unless the URL passes libpq ``options`` of its own): the correlated
    capacity sums make the planner's cost estimates of a read over a
    large cloud huge, so PostgreSQL's default (``jit`` on above
    ``jit_above_cost``) compiled such a read for some 600 ms to run it in
    30; no read here runs long enough for compiled code to pay off.

Readers (both servers)
    :func:`placement.db.transaction.reader` takes its connections from a
    pool of their own whose connections stay in autocommit (see
    :func:`readers_of`).

Retries
    Each engine carries its :class:`~placement.db.retry.RetryPolicy` (the
    ``db_*retry*`` options), read by :func:`retry_policy_of`: how long
    :mod:`placement.db.transaction` runs an aborted transaction again, and
    how long the API re-runs a read request whose database connection was
    cut (``placement.wsgi.rerun``).

Outages
    A pooled connection that has been idle for :data:`PING_AFTER_IDLE`
    seconds or more is pinged as it is checked out (both servers) and
    replaced when the server restarted, so a process recovers by itself once
    its database is back; while it is down, the failed connects raise at
    once (refused) or after the connect timeout, and the API answers 503
    (see :func:`placement.db.is_unavailable_db_error`). A connection back in
    the pool for less than that is not pinged: under load that is every
    checkout, and the ping was a round trip per request (SQLAlchemy's
    ``pool_pre_ping`` pings every time). If the server restarted within
    that second, the first statement on such a connection fails as
    disconnected, SQLAlchemy then discards every older pooled connection,
    and the transaction runs again on a new one (writers) or is answered 503.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl
from weakref import WeakKeyDictionary

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.pool import StaticPool

from placement.db.retry import RetryPolicy

LOG = logging.getLogger(__name__)

#: Execution option naming the SQLite ``BEGIN`` flavour for a connection:
#: ``"IMMEDIATE"`` for writers, ``"DEFERRED"`` (the default) for readers.
SQLITE_BEGIN_OPTION = "placement_sqlite_begin"

#: Seconds a SQLite connection waits for a lock before "database is locked".
SQLITE_BUSY_TIMEOUT = 30.0

_MYSQL_ISOLATION = "READ COMMITTED"

#: Seconds a PostgreSQL connect may take before it fails (PyMySQL's default).
PG_CONNECT_TIMEOUT = 10

#: Seconds a pooled connection may sit idle and still be handed out unpinged.
PING_AFTER_IDLE = 1.0

#: Database servers' engines' companions for readers (see :func:`readers_of`).
_READERS: WeakKeyDictionary[Engine, Engine] = WeakKeyDictionary()

#: Each engine's retry policy (see *Retries*), its readers' engine's too.
_POLICIES: WeakKeyDictionary[Engine, RetryPolicy] = WeakKeyDictionary()


def readers_of(engine: Engine) -> Engine:
    """The engine :func:`placement.db.transaction.reader` uses for ``engine``.

    On MySQL/MariaDB and PostgreSQL: a companion with a pool of its own,
    created with the same settings, whose connections are in autocommit for
    good. A read then costs its statements and nothing else: no ``BEGIN``,
    no ``ROLLBACK`` when done, and no switching a pooled connection to
    autocommit and back (a round trip each way). At READ COMMITTED, both
    servers' level here, each statement of a transaction reads its own
    snapshot anyway, so a reader sees what it saw in a transaction.
    Disposing ``engine`` disposes it too. On SQLite: ``engine`` itself.
    """
    return _READERS.get(engine, engine)


def retry_policy_of(engine: Engine) -> RetryPolicy:
    """How long transactions on ``engine`` are retried (the defaults unless configured)."""
    return _POLICIES.get(engine) or RetryPolicy()


def create_engine(conf: Any, url: str | None = None) -> Engine:
    """Build the engine from ``conf.placement_database`` and wait for the server.

    ``url`` overrides ``[placement_database] connection`` (the caller may have
    worked out an embedded SQLite URL). ``connection_parameters`` is appended
    to the URL's query. The server is contacted once here, retrying
    ``max_retries`` times ``retry_interval`` seconds apart (``-1`` = forever),
    so a process started before its database fails late rather than never.
    """
    opts = conf.placement_database
    configured = url or opts.connection
    if not configured:
        raise ValueError("no database configured: set [placement_database] connection")
    full_url = add_connection_parameters(configured, opts.connection_parameters)
    debug = opts.connection_debug or 0
    engine = engine_from_url(
        full_url,
        sqlite_synchronous=opts.sqlite_synchronous,
        mysql_sql_mode=opts.mysql_sql_mode,
        mysql_wsrep_sync_wait=opts.mysql_wsrep_sync_wait,
        retry=RetryPolicy(
            max_time=opts.db_max_retry_time,
            interval=opts.db_retry_interval,
            max_interval=opts.db_max_retry_interval,
        ),
        pool_size=opts.max_pool_size,
        max_overflow=opts.max_overflow,
        pool_timeout=opts.pool_timeout,
        pool_recycle=opts.connection_recycle_time,
        echo="debug" if debug >= 100 else debug >= 50,
    )
    wait_for_database(engine, max_retries=opts.max_retries, retry_interval=opts.retry_interval)
    return engine


def add_connection_parameters(url: str | URL, parameters: str | None) -> URL:
    """Return ``url`` with a query string like ``charset=utf8&x=y`` merged in."""
    url = make_url(url)
    if not parameters:
        return url
    extra: dict[str, list[str]] = {}
    for key, value in parse_qsl(parameters.lstrip("?"), keep_blank_values=True):
        extra.setdefault(key, []).append(value)
    query: dict[str, str | tuple[str, ...]] = dict(url.query)
    for key, values in extra.items():
        query[key] = values[0] if len(values) == 1 else tuple(values)
    return url.set(query=query)


def engine_from_url(
    url: str | URL,
    *,
    sqlite_synchronous: bool = True,
    mysql_sql_mode: str | None = "TRADITIONAL",
    mysql_wsrep_sync_wait: int | None = None,
    retry: RetryPolicy | None = None,
    pool_size: int | None = None,
    max_overflow: int | None = None,
    pool_timeout: int | None = None,
    pool_recycle: int = 3600,
    echo: bool | str = False,
    sqlite_busy_timeout: float = SQLITE_BUSY_TIMEOUT,
) -> Engine:
    """Create an engine for ``url`` with the per-backend setup described above.

    Does not connect; see :func:`wait_for_database`. ``retry`` None: the
    defaults.
    """
    url = make_url(url)
    backend = url.get_backend_name()
    kwargs: dict[str, Any] = {"echo": echo}
    if backend == "sqlite":
        engine = _sqlite_engine(
            url,
            kwargs,
            sqlite_synchronous,
            sqlite_busy_timeout,
            pool_size,
            max_overflow,
            pool_timeout,
        )
    else:
        kwargs.update(pool_recycle=pool_recycle)
        _pool_kwargs(kwargs, pool_size, max_overflow, pool_timeout)
        session = _MysqlSession(mysql_sql_mode, mysql_wsrep_sync_wait)
        engine = _server_with_readers(url, kwargs, session, retry)
    _POLICIES[engine] = retry or RetryPolicy()
    return engine


def _server_with_readers(
    url: URL, kwargs: dict[str, Any], session: _MysqlSession, retry: RetryPolicy | None
) -> Engine:
    """A database server's engine, with its readers' companion (see
    :func:`readers_of`), which goes when it is disposed."""
    backend = url.get_backend_name()
    if backend in ("mysql", "mariadb") and "charset" not in url.query:
        url = url.update_query_dict({"charset": "utf8mb4"})
    if backend == "postgresql":
        kwargs["connect_args"] = _postgresql_connect_args(url)
    engine = _server_engine(url, kwargs, session)
    # No transaction is ever open on a connection in autocommit: nothing
    # to roll back when it returns to the pool.
    readers = _server_engine(
        url,
        dict(kwargs, isolation_level="AUTOCOMMIT", pool_reset_on_return=None),
        session,
    )
    _READERS[engine] = readers
    _POLICIES[readers] = retry or RetryPolicy()
    event.listen(engine, "engine_disposed", lambda _engine: readers.dispose())
    return engine


def _postgresql_connect_args(url: URL) -> dict[str, Any]:
    """libpq's ``connect_timeout`` and, unless the URL names ``options``,
    ``jit`` off for the session (see *PostgreSQL* above)."""
    args: dict[str, Any] = {}
    if "connect_timeout" not in url.query:
        args["connect_timeout"] = PG_CONNECT_TIMEOUT
    if "options" not in url.query:
        args["options"] = "-c jit=off"
    return args


def _server_engine(url: URL, kwargs: dict[str, Any], session: _MysqlSession) -> Engine:
    """A MySQL/MariaDB or PostgreSQL engine set up as described above."""
    if url.get_backend_name() in ("mysql", "mariadb"):
        engine = sqlalchemy.create_engine(url, **{"isolation_level": _MYSQL_ISOLATION, **kwargs})
        _set_mysql_session(engine, session)
    else:
        engine = sqlalchemy.create_engine(url, **kwargs)
    _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: Engine) -> None:
    """Ping a connection at checkout if it sat in the pool for
    :data:`PING_AFTER_IDLE` seconds or more (see *Outages* above)."""

    @event.listens_for(engine.pool, "checkin")
    def _checked_in(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["placement_idle_since"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("placement_idle_since")
        if since is not None and time.monotonic() - since < PING_AFTER_IDLE:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            if not engine.dialect.is_disconnect(error, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            # The pool drops this connection and checks out another.
            raise sqlalchemy.exc.DisconnectionError()


def _pool_kwargs(
    kwargs: dict[str, Any],
    pool_size: int | None,
    max_overflow: int | None,
    pool_timeout: int | None,
) -> None:
    if pool_size is not None:
        kwargs["pool_size"] = pool_size
    if max_overflow is not None:
        kwargs["max_overflow"] = max_overflow
    if pool_timeout is not None:
        kwargs["pool_timeout"] = pool_timeout


def _is_memory_sqlite(url: URL) -> bool:
    database = url.database or ""
    return database in ("", ":memory:") or url.query.get("mode") == "memory"


def _sqlite_engine(
    url: URL,
    kwargs: dict[str, Any],
    synchronous: bool,
    busy_timeout: float,
    pool_size: int | None,
    max_overflow: int | None,
    pool_timeout: int | None,
) -> Engine:
    memory = _is_memory_sqlite(url)
    connect_args: dict[str, Any] = {"timeout": busy_timeout}
    if memory:
        # One shared connection, usable from any thread, so every caller sees
        # the same in-memory database. Fine for tests, not for concurrency.
        connect_args["check_same_thread"] = False
        kwargs["poolclass"] = StaticPool
    else:
        _pool_kwargs(kwargs, pool_size, max_overflow, pool_timeout)
    engine = sqlalchemy.create_engine(url, connect_args=connect_args, **kwargs)
    pragmas = [
        "PRAGMA foreign_keys = ON",
        f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}",
        f"PRAGMA synchronous = {'FULL' if synchronous else 'OFF'}",
    ]
    if not memory:
        pragmas.append("PRAGMA journal_mode = WAL")
    _take_transactions_from_pysqlite(engine, pragmas)
    return engine


def _take_transactions_from_pysqlite(engine: Engine, pragmas: list[str]) -> None:
    """Run ``pragmas`` on each new connection and have SQLAlchemy, not
    pysqlite, begin transactions (``BEGIN IMMEDIATE`` for writers that ask)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take BEGIN/COMMIT away from pysqlite; _on_begin emits BEGIN.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in pragmas:
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: sqlalchemy.Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN_OPTION, "DEFERRED")
        conn.exec_driver_sql("BEGIN IMMEDIATE" if mode == "IMMEDIATE" else "BEGIN")


#: ``wsrep_sync_wait``'s bit for reads: wait until the node has applied every
#: write-set the cluster committed before the read began.
_CAUSAL_READS = 1

#: MySQL's "Unknown system variable": a server built without Galera.
_UNKNOWN_VARIABLE = 1193


@contextmanager
def causal_reads(conn: Connection) -> Iterator[None]:
    """Within the block, reads on ``conn`` see every write the cluster committed
    before them, whatever node they run on.

    On MariaDB (Galera or not) this sets the session's ``wsrep_sync_wait``
    read bit for the block, whatever ``[placement_database]
    mysql_wsrep_sync_wait`` says, and puts the previous value back; on a
    server without the variable and on the other backends, whose reads are
    already causal, it does nothing.
    """
    if conn.dialect.name not in ("mysql", "mariadb"):
        yield
        return
    try:
        previous = int(conn.exec_driver_sql("SELECT @@SESSION.wsrep_sync_wait").scalar() or 0)
    except sqlalchemy.exc.OperationalError as exc:
        if exc.orig is None or exc.orig.args[0] != _UNKNOWN_VARIABLE:
            raise
        yield
        return
    conn.exec_driver_sql(f"SET SESSION wsrep_sync_wait = {previous | _CAUSAL_READS}")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"SET SESSION wsrep_sync_wait = {previous}")


#: Bytes a ``GROUP_CONCAT`` may return (MySQL's default, 1024, would cut a
#: provider's list of traits short without an error).
MYSQL_GROUP_CONCAT_MAX_LEN = 16 * 1024 * 1024


#: MariaDB (10.3 onwards) rewrites an ``IN`` list of 1,000 values or more
#: as a join with a table of them, and may then drive a statement from the
#: whole of the other side: the summaries of a thousand trees read every
#: entry of the providers' root index (120,000 at 100k nodes, 38 ms; 18 ms
#: as a list, whose values are probed one by one, at 10k nodes as at 100k).
#: Long lists were no slower as lists, up to 60,000 values. MySQL has
#: neither the rewrite nor the variable.
MARIADB_IN_LISTS = "SET SESSION in_predicate_conversion_threshold = 0"


@dataclass(frozen=True)
class _MysqlSession:
    """The session variables every MySQL/MariaDB connection of both pools gets."""

    sql_mode: str | None
    wsrep_sync_wait: int | None


def _set_mysql_session(engine: Engine, session: _MysqlSession) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"SET SESSION group_concat_max_len = {MYSQL_GROUP_CONCAT_MAX_LEN}")
            if "mariadb" in dbapi_connection.get_server_info().lower():
                cursor.execute(MARIADB_IN_LISTS)
            if session.sql_mode:
                cursor.execute("SET SESSION sql_mode = %s", (session.sql_mode,))
            if session.wsrep_sync_wait is not None:
                cursor.execute("SET SESSION wsrep_sync_wait = %s", (session.wsrep_sync_wait,))
        finally:
            cursor.close()


def wait_for_database(engine: Engine, *, max_retries: int = 10, retry_interval: float = 10) -> None:
    """Open (and return to the pool) one connection, retrying while it fails.

    ``max_retries`` counts attempts after the first; ``-1`` retries forever.
    SQLite is tried once: a file that cannot be opened will not appear by
    waiting. The last error is re-raised when the attempts are used up.
    """
    if engine.dialect.name == "sqlite":
        max_retries = 0
    attempt = 0
    while True:
        try:
            with engine.connect():
                return
        except (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError) as exc:
            if max_retries >= 0 and attempt >= max_retries:
                raise
            attempt += 1
            LOG.warning(
                "Database %s not reachable (%s); retrying in %s s (attempt %d%s)",
                engine.url.render_as_string(hide_password=True),
                getattr(exc, "orig", exc),
                retry_interval,
                attempt,
                "" if max_retries < 0 else f"/{max_retries}",
            )
            time.sleep(retry_interval)


_THREE_BYTE_UTF8 = {"utf8", "utf8mb3"}


def holds_only_3byte_text(engine: Engine) -> bool:
    """Whether the database stores text as 3-byte UTF-8 (MySQL's utf8mb3).

    A MariaDB/MySQL database created ``CHARACTER SET utf8`` cannot hold a
    character beyond U+FFFF (an emoji): writing one fails ("Incorrect string
    value") and so does comparing a column with one ("Illegal mix of
    collations"). The columns' own character sets count (tables may have
    been converted one by one); before there are tables, the database's.
    """
    if engine.dialect.name not in ("mysql", "mariadb"):
        return False
    with engine.connect() as conn:
        charsets = set(
            conn.exec_driver_sql(
                "SELECT DISTINCT LOWER(CHARACTER_SET_NAME) FROM information_schema.COLUMNS"
                " WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL"
            ).scalars()
        ) or {str(conn.exec_driver_sql("SELECT @@character_set_database").scalar()).lower()}
    return bool(charsets & _THREE_BYTE_UTF8)
