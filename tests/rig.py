"""The test rig: which databases to test on, fresh databases, apps on them,
and ways to call those apps: one request, or several callers at once.

SQLite is always tested. MariaDB/MySQL and PostgreSQL are tested when
``PLACEMENT_TEST_MYSQL_URL`` / ``PLACEMENT_TEST_POSTGRESQL_URL`` name a
server; every test file or test then gets its own fresh database there,
dropped afterwards. Under ``CI=true`` a named server that does not answer
fails the run instead of being skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import falcon.testing
import sqlalchemy
from oslo_config import cfg
from sqlalchemy.engine import make_url

from placement import conf as placement_conf
from placement.db import actionplan_tables, migration, tables
from placement.db import engine as db_engine

SERVER_ENV = {
    "mysql": "PLACEMENT_TEST_MYSQL_URL",
    "postgresql": "PLACEMENT_TEST_POSTGRESQL_URL",
}


def backends() -> list[str]:
    """Backends this run covers: sqlite, plus each server that is named."""
    return ["sqlite"] + [name for name, var in SERVER_ENV.items() if os.environ.get(var)]


@contextlib.contextmanager
def fresh_database(backend: str) -> Iterator[str]:
    """Yield the URL of a new empty database on ``backend``; drop it after."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="placement-test-") as tmp:
            yield f"sqlite:///{os.path.join(tmp, 'placement.db')}"
        return
    from tests import dbutil

    url = dbutil.fresh_database_url(os.environ[SERVER_ENV[backend]])
    try:
        yield url
    finally:
        dbutil.drop_database(url)


def make_conf(url: str, **overrides: dict) -> cfg.ConfigOpts:
    """A configuration for ``url`` with noauth2 and no files read.

    ``overrides`` maps a group name to ``{option: value}``.
    """
    conf = placement_conf.load([], default_config_files=[])
    conf.set_override("connection", url, group="placement_database")
    conf.set_override("auth_strategy", "noauth2", group="api")
    for group, values in overrides.items():
        for name, value in values.items():
            conf.set_override(name, value, group=None if group == "DEFAULT" else group)
    return conf


def migrated(url: str) -> None:
    """Bring the database at ``url`` to the latest schemas (Placement's, action plans')."""
    engine = db_engine.engine_from_url(url)
    try:
        migration.upgrade_all(engine)
    finally:
        engine.dispose()


# Per process: a migrated SQLite file or PostgreSQL database to clone from.
_TEMPLATES: dict[str, str] = {}


def _template(backend: str) -> str:
    """A migrated database to copy, made once per process."""
    if backend not in _TEMPLATES:
        if backend == "sqlite":
            directory = tempfile.mkdtemp(prefix="placement-template-")
            atexit.register(shutil.rmtree, directory, True)
            url = f"sqlite:///{os.path.join(directory, 'template.db')}"
        else:
            from tests import dbutil

            url = dbutil.fresh_database_url(os.environ[SERVER_ENV[backend]])
            atexit.register(dbutil.drop_database, url)
        migrated(url)
        _TEMPLATES[backend] = url
    return _TEMPLATES[backend]


def create_mysql_schema(url: str) -> None:
    """Both schemas in the empty MySQL database at ``url``, from the tables, stamped."""
    engine = db_engine.engine_from_url(url)
    try:
        tables.metadata.create_all(engine)
        migration.stamp(engine, "head")
        actionplan_tables.metadata.create_all(engine)
        migration.stamp_actionplans(engine)
    finally:
        engine.dispose()


@contextlib.contextmanager
def migrated_database(backend: str) -> Iterator[str]:
    """Yield a new database at the latest schema; drop it afterwards.

    Alembic DDL is slow on the servers, so databases are cloned: SQLite by
    copying a migrated template file, PostgreSQL with ``CREATE DATABASE …
    TEMPLATE``; MySQL has no cloning, so its schema comes from ``tables.py``
    directly (the migration tests prove both are the same).
    """
    if backend == "mysql":
        with fresh_database(backend) as url:
            create_mysql_schema(url)
            yield url
        return
    template = make_url(_template(backend))
    if backend == "sqlite":
        with fresh_database(backend) as url:
            shutil.copyfile(template.database, make_url(url).database)
            yield url
        return
    from tests import dbutil

    name = f"placement_test_{uuid.uuid4().hex[:12]}"
    # Cloning needs the template to have no sessions: connect elsewhere.
    admin = sqlalchemy.create_engine(os.environ[SERVER_ENV[backend]], isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{template.database}"')
    finally:
        admin.dispose()
    url = template.set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        dbutil.drop_database(url)


@contextlib.contextmanager
def placement_app(
    backend: str, *, watcher_only: bool = False, **overrides: dict
) -> Iterator[tuple]:
    """Yield ``(wsgi_app, conf)`` on a fresh, migrated database (``watcher_only``:
    Watcher's API alone, ``placement.wsgi.watcher``'s application)."""
    from placement.wsgi import create_app

    with migrated_database(backend) as url:
        conf = make_conf(url, **overrides)
        app = create_app(conf, watcher_only=watcher_only)
        try:
            yield app, conf
        finally:
            _dispose(app)


def _dispose(app: object) -> None:
    """Close the app's pooled connections so the database can be dropped."""
    engine = getattr(app, "placement_engine", None)
    if engine is not None:
        engine.dispose()


# --- calling an app ---------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """What the app answered; header names are lower-cased."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body decoded as JSON, or None when it is empty."""
        return json.loads(self.body) if self.body else None


def request(
    app: Callable, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> Reply:
    """One request straight through the WSGI callable; ``path`` may end in ``?query``.

    (falcon.testing's ``simulate_*`` would reject upstream's empty 200/201
    replies, which carry no Content-Type.)
    """
    path, _, query = path.partition("?")
    environ = falcon.testing.create_environ(
        path=path, query_string=query, method=method, headers=headers, body=body
    )
    seen: dict = {}

    def start_response(status, response_headers, exc_info=None):
        seen["status"] = int(status.split()[0])
        seen["headers"] = {name.lower(): value for name, value in response_headers}

    raw = b"".join(app(environ, start_response))
    return Reply(seen["status"], seen["headers"], raw)


def call(
    app: Callable, method: str, path: str, body: Any = None, version: str = "latest"
) -> tuple[int, Any]:
    """One JSON request as admin (noauth2): ``(status, decoded body or None)``."""
    headers = {
        "X-Auth-Token": "admin",
        "Accept": "application/json",
        "OpenStack-API-Version": f"placement {version}",
    }
    data = b""
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    reply = request(app, method, path, headers, data)
    return reply.status, reply.json()


def run_together(count: int, work: Callable[[int], Any], timeout: float = 120) -> list:
    """Run ``work(0)`` … ``work(count - 1)`` in threads released at one moment.

    Returns what each call returned, in order, or the exception it raised
    (for the test to inspect). Fails if a call is still running after
    ``timeout`` seconds.
    """
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[i] = work(i)
        except BaseException as exc:  # the test inspects it
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    stuck = [i for i, thread in enumerate(threads) if thread.is_alive()]
    assert not stuck, f"work({stuck}) still running after {timeout} s"
    return results
