"""Characters beyond U+FFFF (emoji) in names, on every database.

A MariaDB/MySQL database created ``CHARACTER SET utf8`` stores 3-byte UTF-8
(utf8mb3) and cannot hold them: upstream answers 500 there. We answer 400
naming the field, for writes and lookups alike. Every other database
(utf8mb4, PostgreSQL, SQLite) stores them intact.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy
from sqlalchemy.engine import make_url

from placement.db import engine as db_engine
from placement.wsgi import create_app
from tests import dbutil, rig

EMOJI = "\U0001f600"
ENCODED = "%F0%9F%98%80"


@contextlib.contextmanager
def _mysql_app(charset: str) -> Iterator:
    """An app on a new MariaDB database of ``charset``; dropped afterwards."""
    server = os.environ.get(rig.SERVER_ENV["mysql"])
    if not server:
        pytest.skip("no MySQL/MariaDB server configured")
    name = f"{dbutil.DEFAULT_PREFIX}{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(
        make_url(server).set(database=None), isolation_level="AUTOCOMMIT"
    )
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE `{name}` CHARACTER SET {charset}")
    finally:
        admin.dispose()
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    try:
        rig.migrated(url)
        app = create_app(rig.make_conf(url))
        try:
            yield app
        finally:
            app.placement_engine.dispose()
    finally:
        dbutil.drop_database(url)


def _assert_names(reply_status: int, body: dict, field: str) -> None:
    assert reply_status == 400, body
    detail = body["errors"][0]["detail"]
    assert f"Invalid {field}: the character U+1F600 cannot be stored" in detail, detail


def test_three_byte_database_is_detected():
    with _mysql_app("utf8") as app:
        assert db_engine.holds_only_3byte_text(app.placement_engine)


def test_three_byte_database_answers_400_naming_the_field():
    with _mysql_app("utf8") as app:
        _assert_names(
            *rig.call(app, "POST", "/resource_providers", {"name": f"rp-{EMOJI}"}), "name"
        )
        _assert_names(*rig.call(app, "GET", f"/resource_providers?name=rp-{ENCODED}"), "name")
        _assert_names(*rig.call(app, "GET", f"/resource_classes/CUSTOM_{ENCODED}"), "name")
        _assert_names(*rig.call(app, "DELETE", f"/traits/CUSTOM_{ENCODED}"), "name")
        _assert_names(*rig.call(app, "GET", f"/traits?name=in:CUSTOM_{ENCODED}"), "name")
        _assert_names(
            *rig.call(app, "GET", f"/allocation_candidates?resources=CUSTOM_{ENCODED}:1"),
            "resources",
        )
        _assert_names(*rig.call(app, "GET", f"/usages?project_id={ENCODED}"), "project_id")
        _assert_names(
            *rig.call(
                app,
                "PUT",
                f"/allocations/{uuid.uuid4()}",
                {
                    "allocations": {},
                    "project_id": f"p{EMOJI}",
                    "user_id": "u",
                    "consumer_generation": None,
                    "consumer_type": "INSTANCE",
                },
            ),
            "project_id",
        )
        # Three-byte characters are stored as before.
        status, body = rig.call(app, "POST", "/resource_providers", {"name": "rp-\u2603"})
        assert status == 200 and body["name"] == "rp-\u2603"


def _stores_intact(app) -> None:
    assert not db_engine.holds_only_3byte_text(app.placement_engine)
    status, created = rig.call(app, "POST", "/resource_providers", {"name": f"rp-{EMOJI}"})
    assert status == 200, created
    assert created["name"] == f"rp-{EMOJI}"
    status, found = rig.call(app, "GET", f"/resource_providers?name=rp-{ENCODED}")
    assert status == 200
    assert [rp["uuid"] for rp in found["resource_providers"]] == [created["uuid"]]
    status, _ = rig.call(app, "GET", f"/traits/CUSTOM_{ENCODED}")
    assert status == 404


def test_utf8mb4_database_stores_them_intact():
    with _mysql_app("utf8mb4") as app:
        _stores_intact(app)


@pytest.mark.parametrize("backend", [b for b in rig.backends() if b != "mysql"])
def test_other_databases_store_them_intact(backend):
    with rig.placement_app(backend) as (app, _):
        _stores_intact(app)
