"""An app per backend, and rows the allocation routes would write, written directly."""

from __future__ import annotations

import json
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from io import BytesIO

import pytest
import sqlalchemy
from sqlalchemy import insert, select

from placement.db import tables, writer
from tests import rig


@pytest.fixture
def app(backend: str) -> Iterator:
    """The whole WSGI app (noauth2) on a fresh migrated database."""
    with rig.placement_app(backend) as (wsgi_app, _conf):
        yield wsgi_app


@pytest.fixture
def engine(app) -> sqlalchemy.Engine:
    """The app's own engine, for calling the object layer directly."""
    return app.placement_engine


def _id_of(conn, table, **where) -> int:
    column, value = next(iter(where.items()))
    found = conn.execute(select(table.c.id).where(table.c[column] == value)).scalar()
    if found is None:
        found = conn.execute(insert(table).values(**where)).inserted_primary_key[0]
    return found


def allocate(engine: sqlalchemy.Engine, provider_uuid: str, amounts: dict[str, int], *,
             consumer: str | None = None, project: str = "proj", user: str = "user",
             consumer_type: str | None = None) -> str:
    """Give ``consumer`` (new if None) allocations of ``amounts`` on a provider.

    Writes consumers/projects/users/consumer_types rows as the allocation
    routes do; returns the consumer uuid.
    """
    consumer = consumer or str(uuid.uuid4())
    rp, rc = tables.resource_providers, tables.resource_classes
    with writer(engine) as conn:
        provider_id = conn.execute(select(rp.c.id).where(rp.c.uuid == provider_uuid)).scalar_one()
        if conn.execute(select(tables.consumers.c.id)
                        .where(tables.consumers.c.uuid == consumer)).first() is None:
            type_id = (_id_of(conn, tables.consumer_types, name=consumer_type)
                       if consumer_type else None)
            conn.execute(insert(tables.consumers).values(
                uuid=consumer, project_id=_id_of(conn, tables.projects, external_id=project),
                user_id=_id_of(conn, tables.users, external_id=user), generation=1,
                consumer_type_id=type_id))
        for name, used in amounts.items():
            class_id = conn.execute(select(rc.c.id).where(rc.c.name == name)).scalar_one()
            conn.execute(insert(tables.allocations).values(
                resource_provider_id=provider_id, consumer_id=consumer,
                resource_class_id=class_id, used=used))
    return consumer


def call(app, method: str, path: str, body=None, version: str = "latest") -> tuple:
    """One admin request through the app: ``(status, json or None)``."""
    data = json.dumps(body).encode() if body is not None else b""
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path.split("?")[0],
        "QUERY_STRING": path.partition("?")[2], "SERVER_NAME": "localhost",
        "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": BytesIO(data),
        "wsgi.errors": sys.stderr, "CONTENT_LENGTH": str(len(data)),
        "HTTP_X_AUTH_TOKEN": "admin", "HTTP_OPENSTACK_API_VERSION": f"placement {version}",
    }
    if body is not None:
        environ["CONTENT_TYPE"] = "application/json"
    seen: dict = {}

    def start_response(status, headers, exc_info=None):
        seen["status"] = int(status.split()[0])

    raw = b"".join(app(environ, start_response))
    return seen["status"], (json.loads(raw) if raw else None)


def run_together(count: int, work: Callable[[int], object]) -> list:
    """Run ``work(i)`` in ``count`` threads released at the same moment."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # the test inspects it
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
