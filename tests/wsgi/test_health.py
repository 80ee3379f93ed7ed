"""``/healthcheck``: oslo.middleware's answers, our database backend, no auth, no writes."""

from __future__ import annotations

import contextlib
import socket
import time

import pytest
import sqlalchemy

from placement.wsgi import create_app, health
from tests import rig, server


def probe(app, method: str = "GET") -> rig.Reply:
    return rig.request(app, method, "/healthcheck")


def _not_called(environ, start_response):
    raise AssertionError("the API was called")


@pytest.fixture(params=rig.backends())
def backend(request):
    return request.param


def test_ok_without_authentication(backend):
    with rig.placement_app(backend) as (app, _):
        assert rig.request(app, "GET", "/resource_providers").status == 401
        reply = probe(app)
        assert (reply.status, reply.body) == (200, b"OK")
        assert reply.headers["content-type"] == "text/plain; charset=UTF-8"
        head = probe(app, "HEAD")
        assert (head.status, head.body) == (204, b"")


def test_no_database_writes(backend):
    with rig.placement_app(backend) as (app, conf):
        engine = app.placement_engine
        assert rig.call(app, "POST", "/resource_providers", {"name": "kept"})[0] == 200

        def counts() -> dict[str, int]:
            names = sqlalchemy.inspect(engine).get_table_names()
            with engine.connect() as conn:
                return {
                    name: conn.execute(
                        sqlalchemy.select(sqlalchemy.func.count()).select_from(
                            sqlalchemy.table(name)
                        )
                    ).scalar_one()
                    for name in names
                }

        before = counts()
        for _ in range(5):
            assert probe(app).status == 200
        assert counts() == before


def test_disabled_by_file(tmp_path):
    flag = tmp_path / "disabled"
    overrides = {
        "healthcheck": {
            "backends": ["disable_by_file", "placement_database"],
            "disable_by_file_path": str(flag),
        }
    }
    with rig.placement_app("sqlite", **overrides) as (app, _):
        assert probe(app).status == 200
        flag.touch()
        reply = probe(app)
        assert reply.status == 503
        assert b"DISABLED BY FILE" in reply.body
        assert probe(app, "HEAD").status == 503
        flag.unlink()
        assert probe(app).status == 200


def test_database_refusing_connections():
    closed = server.free_port()  # nothing listens there
    conf = rig.make_conf(f"mysql+pymysql://root@127.0.0.1:{closed}/placement")
    reply = probe(health.HealthRoute(conf, _not_called))
    assert reply.status == 503
    assert reply.body == b"DATABASE UNAVAILABLE"


@contextlib.contextmanager
def silent_server():
    """A port that accepts connections (into the backlog) and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_database_not_answering_in_time():
    with silent_server() as port:
        conf = rig.make_conf(
            f"mysql+pymysql://root@127.0.0.1:{port}/placement",
            healthcheck={"database_timeout": 0.5},
        )
        app = health.HealthRoute(conf, _not_called)
        for _ in range(2):  # the second waits on the first, still hanging, probe
            started = time.monotonic()
            reply = probe(app)
            assert time.monotonic() - started < 3
            assert (reply.status, reply.body) == (503, b"DATABASE TIMEOUT")


def test_a_missing_sqlite_file_is_not_created(tmp_path):
    path = tmp_path / "gone.db"
    reply = probe(health.HealthRoute(rig.make_conf(f"sqlite:///{path}"), _not_called))
    assert (reply.status, reply.body) == (503, b"DATABASE UNAVAILABLE")
    assert not path.exists()


def test_other_paths_go_to_the_api():
    with rig.placement_app("sqlite") as (app, _):
        assert rig.request(app, "GET", "/healthcheck/more").status == 401


def test_create_app_serves_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'p.db'}"
    rig.migrated(url)
    app = create_app(rig.make_conf(url))
    try:
        assert probe(app).body == b"OK"
    finally:
        app.placement_engine.dispose()
