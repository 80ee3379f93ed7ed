"""The services sharing the database (appliers, audit runners) and their heartbeats.

Each long-running process records, every few seconds, that it is alive: one row
per ``(host, name)``, whose ``last_seen_up`` is pushed forward by each beat.
``/v1/services`` derives ACTIVE or FAILED from how long ago that was. Several
processes of one kind on one host share a row (as upstream Watcher's do): the
row says the host runs that service, not which process.
"""

from __future__ import annotations

import datetime

from sqlalchemy import insert, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.db.transaction import writer


def heartbeat(engine: Engine, host: str, name: str, now: datetime.datetime | None = None) -> None:
    """Record that service ``name`` on ``host`` is alive at ``now`` (default: the clock).

    Creates the row on the first beat; when two processes create it at once,
    the loser's insert fails on the unique key and its beat becomes an update.
    """
    now = now or utcnow()
    services = t.services
    live = (services.c.host == host, services.c.name == name, services.c.deleted == 0)
    with writer(engine) as conn:
        if conn.execute(update(services).where(*live).values(last_seen_up=now)).rowcount:
            return
    try:
        with writer(engine) as conn:
            conn.execute(insert(services).values(host=host, name=name, last_seen_up=now))
    except IntegrityError:
        with writer(engine) as conn:
            conn.execute(update(services).where(*live).values(last_seen_up=now))
