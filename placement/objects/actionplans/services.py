"""The services sharing the database (appliers, audit runners) and their heartbeats.

Each long-running process records, every few seconds, that it is alive: one row
per ``(host, name)``, whose ``last_seen_up`` is pushed forward by each beat.
``/v1/services`` derives ACTIVE or FAILED from how long ago that was
(``[DEFAULT] service_down_time``, upstream's option). Several processes of one
kind on one host share a row (as upstream Watcher's do): the row says the host
runs that service, not which process. Services have no uuid: they are addressed
by integer id or name, and paged on their id.
"""

from __future__ import annotations

import dataclasses
import datetime

from sqlalchemy import String, cast, insert, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from placement.actionplans.errors import NotFound
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.db.transaction import reader, writer
from placement.objects.actionplans import paging
from placement.objects.actionplans.idents import by_ident, is_int_like

ACTIVE = "ACTIVE"
FAILED = "FAILED"

#: The applier's name in the list, upstream's (the audit runner beats as
#: ``watcher-decision-engine``).
APPLIER = "watcher-applier"
DECISION_ENGINE = "watcher-decision-engine"


@dataclasses.dataclass(frozen=True)
class Service(paging.Row):
    """A service row; ``uuid`` is its id as text (the marker of its pages), ``status``
    ACTIVE or FAILED as of the read."""

    name: str
    host: str
    last_seen_up: datetime.datetime | None
    status: str = FAILED


LISTING = paging.Listing(
    kind="Service",
    row=Service,
    table=t.services,
    source=t.services,
    joined={"uuid": cast(t.services.c.id, String)},
    unsortable=frozenset({"uuid"}),
    hidden=frozenset({"deleted"}),
    marker_is_uuid=False,
)


def status(service: Service, down_after: datetime.timedelta, now: datetime.datetime) -> str:
    """ACTIVE if the last beat (else the row's last change) is at most ``down_after`` old."""
    seen = service.last_seen_up or service.updated_at or service.created_at
    return ACTIVE if seen is not None and abs(now - seen) <= down_after else FAILED


def list_services(
    engine: Engine, page: paging.Page, down_after: datetime.timedelta
) -> list[Service]:
    """One page of services with their status; opens its own read transaction."""
    with reader(engine) as conn:
        rows = LISTING.fetch_page(conn, page)
    return [with_status(row, down_after) for row in rows]


def find_service(engine: Engine, ident: str) -> Service:
    """The service with this id, else the first (by id) with this name, its status not
    worked out yet (:func:`with_status`); NotFound otherwise. Opens its own read
    transaction."""
    named = by_ident(t.services, ident) if is_int_like(ident) else t.services.c.name == ident
    with reader(engine) as conn:
        query = LISTING.query().where(named).order_by(t.services.c.id).limit(1)
        found = conn.execute(query).mappings().first()
    if found is None:
        raise NotFound("Service", ident)
    return Service(**found)


def get_service(engine: Engine, ident: str, down_after: datetime.timedelta) -> Service:
    """:func:`find_service` with its status."""
    return with_status(find_service(engine, ident), down_after)


def with_status(row: Service, down_after: datetime.timedelta) -> Service:
    """The row with its status as of now."""
    return dataclasses.replace(row, status=status(row, down_after, utcnow()))


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
