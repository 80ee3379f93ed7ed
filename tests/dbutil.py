"""Throw-away databases for tests, on SQLite, MySQL/MariaDB and PostgreSQL.

SQLite is always available. The server backends are used when their
environment variable names a server (a URL whose database part, if any, is
only used to connect for CREATE/DROP DATABASE):

* ``PLACEMENT_TEST_MYSQL_URL``, e.g. ``mysql+pymysql://root@127.0.0.1:3306/``
* ``PLACEMENT_TEST_POSTGRESQL_URL``, e.g.
  ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``

Each test gets its own uniquely named database, dropped afterwards, so tests
can run in parallel (pytest-xdist) against one server. Typical use in a
``conftest.py``::

    from tests import dbutil

    db_url = dbutil.database_fixture()          # one test per backend
    pg_only = dbutil.database_fixture(backends=["postgresql"], name="pg_url")
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator

import pytest
import sqlalchemy
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

BACKENDS = ("sqlite", "mysql", "postgresql")

SERVER_URL_ENV = {
    "mysql": "PLACEMENT_TEST_MYSQL_URL",
    "postgresql": "PLACEMENT_TEST_POSTGRESQL_URL",
}

DEFAULT_PREFIX = "dbhelper_"

_SQLITE_FILE = "placement.sqlite"

# PostgreSQL database name -> the server URL it was created through, so the
# drop connects to the same maintenance database.
_PG_SERVERS: dict[str, URL] = {}


def server_url(backend: str) -> str | None:
    """The server URL to use for ``backend``, or ``None`` if not configured."""
    if backend == "sqlite":
        return "sqlite://"
    return os.environ.get(SERVER_URL_ENV[backend]) or None


def backend_of(url: str | URL) -> str:
    """``sqlite``, ``mysql`` or ``postgresql`` for a database URL."""
    name = make_url(url).get_backend_name()
    return "mysql" if name == "mariadb" else name


def _admin_engine(url: URL) -> sqlalchemy.Engine:
    return sqlalchemy.create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")


def fresh_database_url(server_url: str, *, prefix: str = DEFAULT_PREFIX) -> str:
    """Create an empty database on the server and return its URL.

    For SQLite (``server_url`` ``sqlite://`` or any ``sqlite:`` URL) this is a
    new file in a new temporary directory; for the servers a new database
    (MySQL ``CHARACTER SET utf8mb4``; PostgreSQL UTF8 from ``template0``).
    The returned URL keeps the password, so it can be handed to a subprocess.
    """
    url = make_url(server_url)
    backend = backend_of(url)
    name = f"{prefix}{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        directory = tempfile.mkdtemp(prefix=prefix)
        new = url.set(database=os.path.join(directory, _SQLITE_FILE))
    elif backend == "mysql":
        admin = _admin_engine(url.set(database=None))
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4")
        finally:
            admin.dispose()
        new = url.set(database=name)
    elif backend == "postgresql":
        admin = _admin_engine(url)
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(
                    f"CREATE DATABASE \"{name}\" ENCODING 'UTF8' TEMPLATE template0"
                )
        finally:
            admin.dispose()
        _PG_SERVERS[name] = url
        new = url.set(database=name)
    else:
        raise ValueError(f"unsupported test database backend: {backend}")
    return new.render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    """Drop a database made by :func:`fresh_database_url` (missing is fine).

    PostgreSQL drops ``WITH (FORCE)``, so connections a test leaked do not
    make the drop fail.
    """
    parsed = make_url(url)
    backend = backend_of(parsed)
    name = parsed.database
    if backend == "sqlite":
        if name and os.path.isabs(name):
            _drop_sqlite(name)
        return
    if backend == "mysql":
        admin = _admin_engine(parsed.set(database=None))
        statement = f"DROP DATABASE IF EXISTS `{name}`"
    else:
        server = _PG_SERVERS.pop(name, None) or parsed.set(database="postgres")
        admin = _admin_engine(server)
        statement = f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(statement)
    finally:
        admin.dispose()


def _drop_sqlite(path: str) -> None:
    directory = os.path.dirname(path)
    made_by_us = (
        os.path.basename(path) == _SQLITE_FILE
        and os.path.dirname(directory) == tempfile.gettempdir()
    )
    if made_by_us:
        shutil.rmtree(directory, ignore_errors=True)
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        _remove(path + suffix)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def database_fixture(
    backends: Iterable[str] = BACKENDS,
    *,
    scope: str = "function",
    prefix: str = DEFAULT_PREFIX,
    name: str | None = None,
):
    """Make a pytest fixture yielding a fresh database URL per backend.

    The fixture is parametrized over ``backends`` (test ids ``[sqlite]``,
    ``[mysql]``, ``[postgresql]``); a server backend whose environment
    variable is unset shows up as skipped. The database is dropped when the
    fixture's scope ends.
    """
    params = []
    for backend in backends:
        marks = []
        if server_url(backend) is None:
            reason = f"set {SERVER_URL_ENV[backend]} to test {backend}"
            marks.append(pytest.mark.skip(reason=reason))
        params.append(pytest.param(backend, marks=marks, id=backend))

    @pytest.fixture(scope=scope, params=params, name=name)
    def _database_url(request: pytest.FixtureRequest) -> Iterator[str]:
        url = fresh_database_url(server_url(request.param), prefix=prefix)
        try:
            yield url
        finally:
            drop_database(url)

    return _database_url


def driver_autocommit(conn: sqlalchemy.Connection) -> bool:
    """Whether the driver's connection under ``conn`` is in autocommit."""
    dbapi = conn.connection.dbapi_connection
    if conn.dialect.name == "sqlite":
        return False  # the engine sends its own BEGIN (see ``db.engine``)
    if conn.dialect.name == "postgresql":
        return bool(dbapi.autocommit)  # type: ignore[union-attr]
    return bool(dbapi.get_autocommit())  # type: ignore[union-attr]
