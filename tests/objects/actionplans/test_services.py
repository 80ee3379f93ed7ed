"""Service heartbeats on all three databases: one row per host and name, pushed forward."""

from __future__ import annotations

import datetime

from sqlalchemy import select

from placement.db import actionplan_tables as t
from placement.objects.actionplans import services
from tests.objects.actionplans.store import Store

T0 = datetime.datetime(2026, 11, 27, 12, 0, 0)


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
