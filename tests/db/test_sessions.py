"""How the engine sets up each PostgreSQL session."""

from __future__ import annotations

import pytest
import sqlalchemy

from placement import db


def test_postgresql_sessions_run_without_jit(engine: sqlalchemy.Engine, backend: str) -> None:
    """JIT compiled a window's read over a large cloud for 600 ms to run
    it in 30 (``db/engine.py``); both pools' sessions have it off."""
    if backend != "postgresql":
        pytest.skip("a PostgreSQL setting")
    for each in (engine, db.readers_of(engine)):
        with each.connect() as conn:
            assert conn.exec_driver_sql("SHOW jit").scalar() == "off"


def test_mariadb_sessions_keep_long_in_lists_as_lists(
    engine: sqlalchemy.Engine, backend: str
) -> None:
    """MariaDB turned the summaries' thousand roots into a join it drove
    from every provider (``db/engine.py``); both pools' sessions keep
    ``IN`` lists as lists."""
    if backend != "mysql":
        pytest.skip("a MySQL/MariaDB setting")
    for each in (engine, db.readers_of(engine)):
        with each.connect() as conn:
            if not getattr(conn.dialect, "is_mariadb", False):
                pytest.skip("MySQL does not rewrite IN lists")
            threshold = conn.exec_driver_sql("SELECT @@in_predicate_conversion_threshold")
            assert threshold.scalar() == 0


def test_options_in_the_url_are_left_as_given(db_url: str, backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("a PostgreSQL setting")
    url = sqlalchemy.make_url(db_url).update_query_dict({"options": "-c work_mem=8MB"})
    engine = db.engine_from_url(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW work_mem").scalar() == "8MB"
    finally:
        engine.dispose()
