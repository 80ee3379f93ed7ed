"""The test rig: which databases to test on, fresh databases, apps on them.

SQLite is always tested. MariaDB/MySQL and PostgreSQL are tested when
``PLACEMENT_TEST_MYSQL_URL`` / ``PLACEMENT_TEST_POSTGRESQL_URL`` name a
server; every test file or test then gets its own fresh database there,
dropped afterwards. Under ``CI=true`` a named server that does not answer
fails the run instead of being skipped.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

from oslo_config import cfg

from placement import conf as placement_conf
from placement.db import engine as db_engine
from placement.db import migration

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
    """Bring the database at ``url`` to the latest schema."""
    engine = db_engine.engine_from_url(url)
    try:
        migration.upgrade(engine)
    finally:
        engine.dispose()


@contextlib.contextmanager
def placement_app(backend: str, **overrides: dict) -> Iterator[tuple]:
    """Yield ``(wsgi_app, conf)`` on a fresh, migrated database."""
    from placement.wsgi import create_app

    with fresh_database(backend) as url:
        migrated(url)
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
