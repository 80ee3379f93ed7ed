"""Engines, reader/writer transactions and whole-transaction retries.

Retryable errors here are real ones provoked on a real database (a held
SQLite lock, a deadlock, a killed connection), never mocks.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

import pytest
import sqlalchemy as sa
from oslo_config import cfg

from placement import conf as placement_conf
from placement import db
from placement.db import engine as db_engine
from tests import dbutil
from tests.rig import run_together

counter = sa.Table(
    "counter",
    sa.MetaData(),
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("n", sa.Integer, nullable=False),
)


@pytest.fixture
def counter_engine(engine):
    counter.metadata.create_all(engine)
    with db.writer(engine) as conn:
        conn.execute(sa.insert(counter), [{"id": 1, "n": 0}, {"id": 2, "n": 0}])
    return engine


def _sqlite_path(engine) -> str:
    return engine.url.database


# -- engine set-up ----------------------------------------------------------


def test_sqlite_pragmas(tmp_path):
    engine = db.engine_from_url(f"sqlite:///{tmp_path / 'a.db'}")
    with engine.connect() as conn:
        pragma = conn.exec_driver_sql
        assert pragma("PRAGMA foreign_keys").scalar() == 1
        assert pragma("PRAGMA journal_mode").scalar() == "wal"
        assert pragma("PRAGMA busy_timeout").scalar() == 30000
        assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
    engine.dispose()
    engine = db.engine_from_url(f"sqlite:///{tmp_path / 'b.db'}", sqlite_synchronous=False)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 0
    engine.dispose()


def test_in_memory_sqlite_is_shared_across_threads():
    engine = db.engine_from_url("sqlite://")
    counter.metadata.create_all(engine)

    def insert():
        with db.writer(engine) as conn:
            conn.execute(sa.insert(counter), {"id": 7, "n": 1})

    thread = threading.Thread(target=insert)
    thread.start()
    thread.join()
    with db.reader(engine) as conn:
        assert conn.execute(sa.select(counter.c.id)).scalar() == 7
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_sqlite_writer_takes_the_write_lock_at_begin(tmp_path):
    engine = db.engine_from_url(f"sqlite:///{tmp_path / 'lock.db'}")
    counter.metadata.create_all(engine)
    other = sqlite3.connect(str(tmp_path / "lock.db"), timeout=0, isolation_level=None)
    try:
        with db.reader(engine) as conn:
            conn.execute(sa.select(counter)).all()
            other.execute("BEGIN IMMEDIATE")  # a reader holds no write lock
            other.execute("ROLLBACK")
        with db.writer(engine):
            # Nothing written yet, but the writer already owns the lock.
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()
        engine.dispose()


def test_sqlite_concurrent_read_modify_write(counter_engine, backend):
    """Writers serialize at BEGIN, so read-then-write never hits "locked"."""
    if backend != "sqlite":
        pytest.skip("SQLite locking")
    engines = [db.engine_from_url(counter_engine.url) for _ in range(6)]

    def bump(i: int) -> None:
        for _ in range(15):
            with db.writer(engines[i]) as conn:
                n = conn.execute(sa.select(counter.c.n).where(counter.c.id == 1)).scalar()
                conn.execute(sa.update(counter).where(counter.c.id == 1).values(n=n + 1))

    results = run_together(len(engines), bump)
    for engine in engines:
        engine.dispose()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    with db.reader(counter_engine) as conn:
        assert conn.execute(sa.select(counter.c.n).where(counter.c.id == 1)).scalar() == 90


def test_server_session_setup(engine, backend):
    with engine.connect() as conn:
        if backend == "mysql":
            assert conn.exec_driver_sql("SELECT @@character_set_client").scalar() == "utf8mb4"
            assert "TRADITIONAL" in conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar()
            assert conn.get_isolation_level() == "READ COMMITTED"
        elif backend == "postgresql":
            assert conn.get_isolation_level() == "READ COMMITTED"
        else:
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_readers_have_a_pool_of_their_own_in_autocommit(counter_engine, backend):
    """On a database server a reader's connection comes from the readers'
    pool and stays in autocommit: no BEGIN, no ROLLBACK, nothing to switch
    back when it returns. It sets up its session as the writers' pool does."""
    readers = db.readers_of(counter_engine)
    if backend == "sqlite":
        assert readers is counter_engine
        return
    assert readers is not counter_engine and readers.pool is not counter_engine.pool
    for _ in range(2):  # a connection back from the pool is still in autocommit
        with db.reader(counter_engine) as conn:
            assert conn.engine is readers
            assert dbutil.driver_autocommit(conn)
            if backend == "mysql":
                assert "TRADITIONAL" in conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar()
            assert conn.execute(sa.select(counter.c.n).where(counter.c.id == 1)).scalar() == 0
    with db.writer(counter_engine) as conn:
        assert conn.engine is counter_engine
        assert not dbutil.driver_autocommit(conn)


def test_disposing_an_engine_disposes_its_readers(counter_engine, backend):
    if backend == "sqlite":
        pytest.skip("SQLite's readers share the engine")
    readers = db.readers_of(counter_engine)
    with db.reader(counter_engine):
        pass
    assert readers.pool.checkedin() == 1
    counter_engine.dispose()
    assert readers.pool.checkedin() == 0


def test_postgresql_with_psycopg2(db_url, backend):
    if backend != "postgresql":
        pytest.skip("PostgreSQL only")
    url = sa.make_url(db_url).set(drivername="postgresql+psycopg2")
    engine = db.engine_from_url(url)
    try:
        db.upgrade(engine)
        db.sync_standard_names(engine)
        with db.reader(engine) as conn:
            assert (
                conn.execute(sa.select(sa.func.count()).select_from(sa.table("traits"))).scalar()
                > 300
            )
    finally:
        engine.dispose()


def test_connection_parameters_are_appended():
    url = db_engine.add_connection_parameters(
        "mysql+pymysql://u:p@h/placement?charset=utf8", "read_timeout=5&x=1&x=2"
    )
    assert dict(url.query) == {"charset": "utf8", "read_timeout": "5", "x": ("1", "2")}
    assert db_engine.add_connection_parameters("sqlite://", "") == sa.make_url("sqlite://")


def _conf(tmp_path, text: str) -> cfg.ConfigOpts:
    path = tmp_path / "placement.conf"
    path.write_text("[placement_database]\n" + text)
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf(["--config-file", str(path)])
    return conf


def test_create_engine_from_conf(tmp_path):
    conf = _conf(
        tmp_path,
        f"connection = sqlite:///{tmp_path / 'c.db'}\n"
        "connection_parameters = uri=false\n"
        "sqlite_synchronous = false\nconnection_debug = 100\n",
    )
    engine = db.create_engine(conf)
    try:
        assert engine.url.query == {"uri": "false"}
        assert engine.echo == "debug"
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 0
    finally:
        engine.dispose()


def test_connect_retries_then_gives_up(caplog):
    engine = db.engine_from_url("mysql+pymysql://root@127.0.0.1:1/placement")
    caplog.set_level(logging.WARNING, logger="placement.db.engine")
    started = time.monotonic()
    with pytest.raises(sa.exc.OperationalError):
        db.wait_for_database(engine, max_retries=2, retry_interval=0.05)
    assert time.monotonic() - started >= 0.1
    assert len(caplog.records) == 2
    engine.dispose()


# -- transactions -----------------------------------------------------------


def test_writer_commits_and_rolls_back(counter_engine):
    with db.writer(counter_engine) as conn:
        conn.execute(sa.update(counter).where(counter.c.id == 1).values(n=5))
    with pytest.raises(RuntimeError), db.writer(counter_engine) as conn:
        conn.execute(sa.update(counter).where(counter.c.id == 1).values(n=6))
        raise RuntimeError("boom")
    with db.reader(counter_engine) as conn:
        assert conn.execute(sa.select(counter.c.n).where(counter.c.id == 1)).scalar() == 5
    total = db.run_in_transaction(
        counter_engine,
        lambda conn: conn.execute(sa.select(sa.func.sum(counter.c.n))).scalar(),
        write=False,
    )
    assert total == 5


def test_non_retryable_errors_are_raised_at_once(counter_engine):
    calls = []

    def insert_duplicate(conn):
        calls.append(1)
        conn.execute(sa.insert(counter), {"id": 1, "n": 1})

    with pytest.raises(sa.exc.IntegrityError) as info:
        db.run_in_transaction(counter_engine, insert_duplicate, write=True)
    assert not db.is_retryable_db_error(info.value)
    assert len(calls) == 1


def _hold_sqlite_lock(path: str, until: threading.Event) -> threading.Thread:
    """Hold SQLite's write lock from a plain sqlite3 connection until ``until``
    is set: no timing, so a slow machine cannot change what the test sees."""
    ready = threading.Event()

    def hold():
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        ready.set()
        until.wait(60)
        conn.execute("ROLLBACK")
        conn.close()

    thread = threading.Thread(target=hold)
    thread.start()
    ready.wait(10)
    return thread


def test_sqlite_locked_is_retried(tmp_path):
    path = str(tmp_path / "busy.db")
    setup = db.engine_from_url(f"sqlite:///{path}")
    counter.metadata.create_all(setup)
    setup.dispose()
    engine = db.engine_from_url(f"sqlite:///{path}", sqlite_busy_timeout=0.02)
    errors = []
    locked_out = threading.Event()  # set by the first "database is locked"

    def seen(context):
        errors.append(context)
        locked_out.set()

    sa.event.listen(engine, "handle_error", seen)
    calls = []

    def bump(conn):
        calls.append(1)
        conn.execute(sa.insert(counter), {"id": 1, "n": 1})
        return "done"

    holder = _hold_sqlite_lock(path, locked_out)  # released once we were refused
    try:
        assert (
            db.run_in_transaction(
                engine, bump, write=True, budget=db.RetryPolicy(max_time=30).budget()
            )
            == "done"
        )
    finally:
        holder.join()
    assert len(errors) >= 1  # "database is locked" at least once, then success
    assert len(calls) == 1  # the lock is taken at BEGIN, before fn runs

    # With the lock held throughout, the retry time runs out and the error surfaces.
    calls.clear()
    release = threading.Event()
    holder = _hold_sqlite_lock(path, release)
    try:
        with pytest.raises(sa.exc.OperationalError, match="locked") as info:
            db.run_in_transaction(
                engine, bump, write=True, budget=db.RetryPolicy(max_time=0.2).budget()
            )
    finally:
        release.set()
        holder.join()
    assert db.is_retryable_db_error(info.value)
    assert len(calls) == 0  # BEGIN IMMEDIATE itself failed: fn never ran

    engine.dispose()


def test_deadlock_is_retried(counter_engine, backend):
    if backend == "sqlite":
        pytest.skip("SQLite writers serialize at BEGIN IMMEDIATE; no deadlocks")
    barrier = threading.Barrier(2)
    calls = {1: 0, 2: 0}

    def crosswise(first: int, second: int):
        def fn(conn):
            calls[first] += 1
            conn.execute(sa.update(counter).where(counter.c.id == first).values(n=counter.c.n + 1))
            if calls[first] == 1:
                barrier.wait(timeout=30)  # both now hold one row each
            conn.execute(sa.update(counter).where(counter.c.id == second).values(n=counter.c.n + 1))

        return fn

    orders = ((1, 2), (2, 1))

    def run(i: int) -> str:
        db.run_in_transaction(counter_engine, crosswise(*orders[i]), write=True)
        return "ok"

    assert run_together(2, run) == ["ok", "ok"]
    assert sorted(calls.values()) == [1, 2]  # exactly one deadlock victim, re-run once
    with db.reader(counter_engine) as conn:
        assert conn.execute(sa.select(counter.c.n).order_by(counter.c.id)).scalars().all() == [2, 2]


@pytest.fixture
def admin(counter_engine, backend):
    """A second, autocommit engine on the server of ``counter_engine``."""
    if backend == "sqlite":
        pytest.skip("no server connection to lose")
    admin = sa.create_engine(counter_engine.url, isolation_level="AUTOCOMMIT")
    yield admin
    admin.dispose()


def test_lost_connection_is_retried(counter_engine, backend, admin):
    calls = []

    def fn(conn):
        calls.append(1)
        if len(calls) == 1:
            _kill_own_connection(admin, conn, backend)
        conn.execute(sa.update(counter).where(counter.c.id == 1).values(n=42))

    db.run_in_transaction(counter_engine, fn, write=True)
    assert len(calls) == 2
    with db.reader(counter_engine) as conn:
        assert conn.execute(sa.select(counter.c.n).where(counter.c.id == 1)).scalar() == 42


def _kill_own_connection(admin, conn, backend):
    """Have the server end ``conn``'s session, from another connection."""
    _end_session(admin, backend, _session_id(conn, backend))


def _session_id(conn, backend) -> int:
    query = "SELECT CONNECTION_ID()" if backend == "mysql" else "SELECT pg_backend_pid()"
    return int(conn.exec_driver_sql(query).scalar())


def _end_session(admin, backend, own: int) -> None:
    kill = f"KILL {own}" if backend == "mysql" else f"SELECT pg_terminate_backend({own})"
    with admin.connect() as other:
        other.exec_driver_sql(kill)


def _pooled_then_ended(engine, admin, backend) -> None:
    """Return a connection to ``engine``'s pool, then have the server end it."""
    with engine.connect() as conn:
        own = _session_id(conn, backend)
        conn.rollback()
    _end_session(admin, backend, own)


def test_an_idle_pooled_connection_the_server_ended_is_replaced(
    counter_engine, backend, admin, monkeypatch
):
    """Idle past PING_AFTER_IDLE: pinged at checkout, found dead, replaced."""
    monkeypatch.setattr(db_engine, "PING_AFTER_IDLE", 0.0)
    _pooled_then_ended(counter_engine, admin, backend)
    # The pool holds the dead connection; the ping finds it, a new one answers.
    with counter_engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1


def test_a_just_returned_connection_is_not_pinged(counter_engine, backend, admin, monkeypatch):
    """Back in the pool for less than PING_AFTER_IDLE: handed out as it is
    (no ping round trip), so a server-side end shows at the first statement."""
    monkeypatch.setattr(db_engine, "PING_AFTER_IDLE", 3600.0)
    _pooled_then_ended(counter_engine, admin, backend)
    with counter_engine.connect() as conn, pytest.raises(sa.exc.DBAPIError) as caught:
        conn.exec_driver_sql("SELECT 1")
    assert caught.value.connection_invalidated
    with counter_engine.connect() as conn:  # the pool let the dead one go
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1


def test_is_retryable_on_bare_driver_errors():
    assert db.is_retryable_db_error(sqlite3.OperationalError("database is locked"))
    assert not db.is_retryable_db_error(sqlite3.OperationalError("no such table: x"))
    assert not db.is_retryable_db_error(ValueError("nope"))


@pytest.mark.parametrize(
    "url", ["mysql+pymysql://root@127.0.0.1:1/placement", "postgresql+psycopg://u@127.0.0.1:1/p"]
)
def test_a_refused_connect_is_unavailable(url):
    engine = db.engine_from_url(url)
    try:
        with pytest.raises(sa.exc.OperationalError) as caught:
            db.run_in_transaction(engine, lambda conn: None, write=False)
    finally:
        engine.dispose()
    assert db.is_unavailable_db_error(caught.value)
    assert not db.is_unavailable_db_error(sa.exc.OperationalError("x", {}, ValueError("nope")))


def test_a_commit_that_loses_its_connection_is_in_doubt_and_not_retried(
    counter_engine, backend, admin
):
    calls = []

    def fn(conn):
        calls.append(1)
        conn.execute(sa.update(counter).where(counter.c.id == 1).values(n=7))
        _kill_own_connection(admin, conn, backend)

    with pytest.raises(db.CommitInDoubt) as caught:
        db.run_in_transaction(counter_engine, fn, write=True)
    assert calls == [1]
    assert db.is_unavailable_db_error(caught.value)
