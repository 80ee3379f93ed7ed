"""Fixtures for the database-layer tests: a fresh database per backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy

from placement import db

try:
    from tests import dbutil
except ImportError:  # tests/ is not a package: pytest put tests/ itself on sys.path
    import dbutil  # type: ignore[no-redef]

#: A fresh, empty database URL; the test runs once per configured backend.
db_url = dbutil.database_fixture()


@pytest.fixture
def engine(db_url: str) -> Iterator[sqlalchemy.Engine]:
    """An engine on the fresh database, set up as the application sets it up."""
    engine = db.engine_from_url(db_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def migrated_engine(engine: sqlalchemy.Engine) -> sqlalchemy.Engine:
    """``engine`` on a database upgraded to the head revision."""
    db.upgrade(engine)
    return engine


@pytest.fixture
def backend(db_url: str) -> str:
    """``sqlite``, ``mysql`` or ``postgresql``."""
    return dbutil.backend_of(db_url)
