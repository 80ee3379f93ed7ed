"""The test rig: which databases to test on, fresh databases, apps on them.

SQLite is always tested. MariaDB/MySQL and PostgreSQL are tested when
``PLACEMENT_TEST_MYSQL_URL`` / ``PLACEMENT_TEST_POSTGRESQL_URL`` name a
server; every test file or test then gets its own fresh database there,
dropped afterwards. Under ``CI=true`` a named server that does not answer
fails the run instead of being skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator

import sqlalchemy
from oslo_config import cfg
from sqlalchemy.engine import make_url

from placement import conf as placement_conf
from placement.db import engine as db_engine
from placement.db import migration, tables

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
    """Bring the database at ``url`` to the latest schema with alembic."""
    engine = db_engine.engine_from_url(url)
    try:
        migration.upgrade(engine)
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
            engine = db_engine.engine_from_url(url)
            try:
                tables.metadata.create_all(engine)
                migration.stamp(engine, "head")
            finally:
                engine.dispose()
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
    admin = sqlalchemy.create_engine(os.environ[SERVER_ENV[backend]],
                                     isolation_level="AUTOCOMMIT")
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
def placement_app(backend: str, **overrides: dict) -> Iterator[tuple]:
    """Yield ``(wsgi_app, conf)`` on a fresh, migrated database."""
    from placement.wsgi import create_app

    with migrated_database(backend) as url:
        conf = make_conf(url, **overrides)
        app = create_app(conf)
        try:
            yield app, conf
        finally:
            _dispose(app)


def _dispose(app: object) -> None:
    """Close the app's pooled connections so the database can be dropped."""
    engine = getattr(app, "placement_engine", None)
    if engine is not None:
        engine.dispose()
