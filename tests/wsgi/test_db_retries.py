"""What the API answers when the database aborts, cuts or loses a transaction.

* A claim whose ``COMMIT`` loses its connection (a real server behind
  :mod:`tests.cutproxy`, the connection cut before or after the server ran
  the ``COMMIT``) is judged by reading the consumer back: answered 204
  exactly once either way, its allocations held once, its generation moved
  once; when it cannot be read back, answered 503 "may or may not".
* A read whose connection is cut mid-request (killed by the server) is run
  again and answered 200.
* Conflicts that outlast ``db_max_retry_time``: a write answers 409
  ``placement.concurrent_update``, a read 503 with ``Retry-After`` (the
  engine's connect made to fail, so it runs everywhere).
* ``mysql_wsrep_sync_wait`` reaches the session of both pools.
"""

from __future__ import annotations

import os
import uuid

import pymysql
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from placement import db
from placement.db import engine as db_engine
from tests import rig
from tests.cutproxy import cut_proxy

SERVERS = [b for b in ("mysql", "postgresql") if b in rig.backends()]


def _provider(app, total: int = 10) -> str:
    provider = str(uuid.uuid4())
    status, _ = rig.call(app, "POST", "/resource_providers", {"name": provider, "uuid": provider})
    assert status in (200, 201)
    status, _ = rig.call(
        app,
        "PUT",
        f"/resource_providers/{provider}/inventories",
        {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}},
    )
    assert status == 200
    return provider


def _claim(app, consumer: str, provider: str, vcpu: int, generation: int | None) -> int:
    body = {
        "allocations": {provider: {"resources": {"VCPU": vcpu}}},
        "project_id": "p",
        "user_id": "u",
        "consumer_generation": generation,
    }
    status, _ = rig.call(app, "PUT", f"/allocations/{consumer}", body, version="1.28")
    return status


@pytest.fixture(params=SERVERS)
def proxied(request):
    """An app whose every database connection runs through a :class:`CutProxy`."""
    with rig.migrated_database(request.param) as url:
        parsed = make_url(url)
        with cut_proxy(parsed.port or (3306 if request.param == "mysql" else 5432)) as proxy:
            through = parsed.set(host="127.0.0.1", port=proxy.port)
            conf = rig.make_conf(through.render_as_string(hide_password=False))
            from placement.wsgi import create_app

            app = create_app(conf)
            try:
                yield app, proxy
            finally:
                app.placement_engine.dispose()


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_claim_whose_commit_was_lost_is_made_exactly_once(proxied, when):
    app, proxy = proxied
    provider = _provider(app)
    new, old = str(uuid.uuid4()), str(uuid.uuid4())
    assert _claim(app, old, provider, 1, None) == 204

    proxy.arm(when)
    assert _claim(app, new, provider, 2, None) == 204  # a new consumer
    proxy.arm(when)
    assert _claim(app, old, provider, 3, 1) == 204  # an existing one, its generation given
    assert proxy.cuts == 2

    for consumer, vcpu, generation in ((new, 2, 1), (old, 3, 2)):
        status, held = rig.call(app, "GET", f"/allocations/{consumer}")
        assert status == 200
        assert held["allocations"][provider]["resources"] == {"VCPU": vcpu}
        assert held["consumer_generation"] == generation
    status, usages = rig.call(app, "GET", f"/resource_providers/{provider}/usages")
    assert usages["usages"] == {"VCPU": 5}


def test_a_lost_commit_that_cannot_be_read_back_is_in_doubt(proxied):
    """The database unreachable after the cut (the proxy refuses new
    connections): the claim may have landed, and the answer says so."""
    app, proxy = proxied
    provider = _provider(app)
    assert _claim(app, str(uuid.uuid4()), provider, 1, None) == 204  # owners exist
    db.readers_of(app.placement_engine).dispose()  # the read-back must connect
    proxy.arm("after")
    proxy.close()  # pooled writers' links stay up; new connections are refused
    body = {
        "allocations": {provider: {"resources": {"VCPU": 1}}},
        "project_id": "p",
        "user_id": "u",
        "consumer_generation": None,
    }
    status, answer = rig.call(app, "PUT", f"/allocations/{uuid.uuid4()}", body, version="1.28")
    assert status == 503
    assert "may or may not have been made" in answer["errors"][0]["detail"]


@pytest.mark.parametrize("backend", SERVERS)
def test_a_read_whose_connection_is_cut_runs_again(backend):
    with rig.placement_app(backend) as (app, _conf):
        provider = _provider(app)
        readers = db.readers_of(app.placement_engine)
        admin = sa.create_engine(os.environ[rig.SERVER_ENV[backend]], poolclass=sa.pool.NullPool)
        cut = []

        @sa.event.listens_for(readers, "before_cursor_execute")
        def kill_once(conn, *_args):
            if not cut:
                cut.append(True)  # before our own query, which fires this again
                _end_session(admin, backend, _session_id(conn, backend))

        try:
            status, body = rig.call(app, "GET", f"/resource_providers/{provider}")
        finally:
            admin.dispose()
        assert cut, "the read was not cut"
        assert status == 200, body
        assert body["uuid"] == provider


def _session_id(conn, backend: str) -> int:
    query = "SELECT CONNECTION_ID()" if backend == "mysql" else "SELECT pg_backend_pid()"
    return int(conn.exec_driver_sql(query).scalar())


def _end_session(admin, backend: str, session: int) -> None:
    kill = f"KILL {session}" if backend == "mysql" else f"SELECT pg_terminate_backend({session})"
    with admin.connect() as other:
        other.exec_driver_sql(kill)


@pytest.fixture(scope="module")
def impatient_app():
    """An app on SQLite that gives up retrying after a fifth of a second."""
    overrides = {"placement_database": {"db_max_retry_time": 0.2}}
    with rig.placement_app("sqlite", **overrides) as (app, _conf):
        yield app


def _deadlocking(app, monkeypatch) -> list[int]:
    """Every connect of both pools fails as a deadlock (error 1213); returns a counter."""
    calls: list[int] = []

    def connect():
        calls.append(1)
        raise sa.exc.OperationalError(
            "SELECT 1", {}, pymysql.err.OperationalError(1213, "Deadlock found")
        )

    monkeypatch.setattr(app.placement_engine, "connect", connect)
    return calls


def test_a_write_the_database_keeps_aborting_is_a_409_concurrent_update(impatient_app, monkeypatch):
    calls = _deadlocking(impatient_app, monkeypatch)
    status, body = rig.call(impatient_app, "POST", "/resource_providers", {"name": "x"})
    assert status == 409
    assert body["errors"][0]["code"] == "placement.concurrent_update"
    assert len(calls) > 1  # retried until the time was spent


def test_a_read_the_database_keeps_aborting_is_a_503_with_retry_after(impatient_app, monkeypatch):
    calls = _deadlocking(impatient_app, monkeypatch)
    reply = rig.request(
        impatient_app,
        "GET",
        "/resource_providers",
        {"X-Auth-Token": "admin", "Accept": "application/json"},
    )
    assert reply.status == 503
    assert reply.headers["retry-after"].isdigit()
    assert len(calls) > 1  # the request was run again until the time was spent


@pytest.mark.skipif("mysql" not in SERVERS, reason="PLACEMENT_TEST_MYSQL_URL is not set")
def test_mysql_wsrep_sync_wait_reaches_both_pools():
    conf = rig.make_conf(
        os.environ[rig.SERVER_ENV["mysql"]], placement_database={"mysql_wsrep_sync_wait": 1}
    )
    engine = db_engine.create_engine(conf)
    try:
        for pool in (engine, db.readers_of(engine)):
            with pool.connect() as conn:
                assert conn.exec_driver_sql("SELECT @@SESSION.wsrep_sync_wait").scalar() == 1
    finally:
        engine.dispose()
