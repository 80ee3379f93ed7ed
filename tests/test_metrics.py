"""What the layers record, in one process: retries, conflicts, the pool, the exposition."""

from __future__ import annotations

import sqlite3
import urllib.request

import prometheus_client
import pytest
import sqlalchemy

from placement import db, metrics
from placement.db import engine as db_engine
from placement.objects import claim, exceptions
from placement.objects import resource_provider as rp_obj
from tests import dbutil, rig, server


@pytest.fixture(autouse=True)
def enabled() -> None:
    metrics.enable()  # once per process; later calls change nothing


@pytest.fixture
def engine(tmp_path):
    engine = db_engine.engine_from_url(f"sqlite:///{tmp_path / 'metrics.db'}")
    yield engine
    engine.dispose()


def count(name: str, **labels: str) -> float:
    return prometheus_client.REGISTRY.get_sample_value(name, labels) or 0.0


def test_enable_twice_keeps_the_metrics():
    metrics.enable()
    assert metrics.enabled()


def test_database_retries_are_counted(engine):
    attempts = []

    def locked_once(conn):
        attempts.append(conn)
        if len(attempts) == 1:
            raise sqlalchemy.exc.OperationalError(
                "SELECT 1", {}, sqlite3.OperationalError("database is locked")
            )
        return "done"

    before = count("placement_server_retries_total", reason="database_error")
    assert db.run_in_transaction(engine, locked_once, write=False) == "done"
    assert count("placement_server_retries_total", reason="database_error") == before + 1


def test_generation_retries_count_every_attempt_but_the_last(engine):
    def lose(conn):
        raise exceptions.ConcurrentUpdate("provider")

    before = count("placement_server_retries_total", reason="generation_conflict")
    with pytest.raises(exceptions.ConcurrentUpdate):
        claim.retry_on_conflict(engine, lose, attempts=3)
    assert count("placement_server_retries_total", reason="generation_conflict") == before + 2


def test_a_lost_provider_compare_and_swap_is_a_conflict():
    with rig.placement_app("sqlite") as (app, _):
        status, body = rig.call(app, "POST", "/resource_providers", {"name": "cas"})
        assert status == 200
        before = count("placement_generation_conflicts_total", kind="resource_provider")
        with pytest.raises(exceptions.ConcurrentUpdate), db.writer(app.placement_engine) as conn:
            provider = rp_obj.get_by_uuid(conn, body["uuid"])
            rp_obj.increment_generation(conn, provider.id, provider.generation + 1)
        after = count("placement_generation_conflicts_total", kind="resource_provider")
        assert after == before + 1


def test_pool_gauge_follows_checkouts(engine):
    metrics.watch_pool(engine)
    with engine.connect():
        assert count("placement_db_pool_connections_in_use") == 1
        with engine.connect():
            assert count("placement_db_pool_connections_in_use") == 2
    assert count("placement_db_pool_connections_in_use") == 0


server_db_url = dbutil.database_fixture(("mysql", "postgresql"))


def test_pool_gauge_counts_the_readers_pool_too(server_db_url):
    engine = db_engine.engine_from_url(server_db_url)
    try:
        metrics.watch_pool(engine, db.readers_of(engine))
        with db.reader(engine):
            assert count("placement_db_pool_connections_in_use") == 1
            with db.writer(engine):
                assert count("placement_db_pool_connections_in_use") == 2
        assert count("placement_db_pool_connections_in_use") == 0
    finally:
        engine.dispose()


def test_pool_gauge_survives_failed_connections():
    """Connections that cannot be made never count as in use."""
    closed = server.free_port()
    engine = db_engine.engine_from_url(f"mysql+pymysql://root@127.0.0.1:{closed}/x")
    try:
        metrics.watch_pool(engine)
        for _ in range(2):
            with pytest.raises(sqlalchemy.exc.OperationalError), engine.connect():
                pass
        assert count("placement_db_pool_connections_in_use") == 0
    finally:
        engine.dispose()


def test_a_single_process_serves_its_own_registry():
    metrics.candidates_returned(3)
    exposition = metrics.serve("127.0.0.1", server.free_port())
    try:
        host, port = exposition.server_address
        with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as response:
            text = response.read().decode()
        assert "placement_allocation_candidates_returned_count" in text
        assert "process_cpu_seconds_total" in text  # this process's own collectors
    finally:
        exposition.shutdown()
        exposition.server_close()
