"""Service heartbeats on all three databases: one row per host and name, pushed forward."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import select

from placement.actionplans.errors import NotFound
from placement.db import actionplan_tables as t
from placement.objects.actionplans import paging, services
from tests.objects.actionplans.store import Store

T0 = datetime.datetime(2026, 11, 27, 12, 0, 0)
DOWN = datetime.timedelta(seconds=90)


def _rows(store: Store, host: str) -> list[tuple[str, datetime.datetime]]:
    with store.engine.connect() as conn:
        query = select(t.services.c.name, t.services.c.last_seen_up).where(
            t.services.c.host == host
        )
        return sorted(tuple(row) for row in conn.execute(query))


def test_first_beat_creates_the_row_and_later_beats_move_it(store: Store) -> None:
    services.heartbeat(store.engine, "host-beats", "placement-applier", now=T0)
    later = T0 + datetime.timedelta(seconds=7, microseconds=250)
    services.heartbeat(store.engine, "host-beats", "placement-applier", now=later)
    services.heartbeat(store.engine, "host-beats", "placement-audit-runner", now=T0)
    assert _rows(store, "host-beats") == [
        ("placement-applier", later),
        ("placement-audit-runner", T0),
    ]


def test_listed_with_status_from_the_last_beat(store: Store) -> None:
    host = f"host-{T0.microsecond}-list"
    now = services.utcnow()
    services.heartbeat(store.engine, host, services.APPLIER, now=now)
    services.heartbeat(store.engine, host, services.DECISION_ENGINE, now=now - DOWN * 2)
    listed = [
        row for row in services.list_services(store.engine, paging.Page(), DOWN) if row.host == host
    ]
    assert [(row.name, row.status) for row in listed] == [
        (services.APPLIER, services.ACTIVE),
        (services.DECISION_ENGINE, services.FAILED),
    ]
    shown = services.get_service(store.engine, str(listed[1].id), DOWN)
    assert (shown.name, shown.status) == (services.DECISION_ENGINE, services.FAILED)
    assert services.get_service(store.engine, services.APPLIER, DOWN).name == services.APPLIER


def test_pages_on_the_id_and_unknown_services_are_not_found(store: Store) -> None:
    for name in ("a", "b"):
        services.heartbeat(store.engine, "host-pages", f"svc-{name}")
    first = services.list_services(store.engine, paging.Page(limit=1), DOWN)
    after = services.list_services(store.engine, paging.Page(limit=1, marker=first[0].uuid), DOWN)
    assert first[0].uuid == str(first[0].id) and after[0].id > first[0].id
    with pytest.raises(NotFound):
        services.get_service(store.engine, "no-such-service", DOWN)
    with pytest.raises(NotFound):
        services.get_service(store.engine, str(2**40), DOWN)
