"""The providers a claim touches, row-locked in id order until it commits.

Concurrent writers of the same provider then queue at the lock instead of
all doing the work and all but one losing the final compare-and-swap of
its generation; taking the locks in one order means writers never deadlock
on each other. SQLite has no row locks and needs none: its writers are
serialized.
"""

from __future__ import annotations

from typing import NamedTuple

import sqlalchemy
from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from placement.db import tables
from placement.objects import exceptions
from placement.objects.claim_consumers import ConsumerWrite

_RP = tables.resource_providers


class LockedProvider(NamedTuple):
    """What an allocation write needs of a provider, read under its row lock."""

    id: int
    uuid: str
    generation: int


def _locking(which: sqlalchemy.ColumnElement[bool]) -> sqlalchemy.Select:
    return (
        select(_RP.c.id, _RP.c.uuid, _RP.c.generation)
        .where(which)
        .order_by(_RP.c.id)
        .with_for_update()
    )


#: :func:`lock_named`'s statement, built once (a claim runs it every time).
_LOCK_NAMED = _locking(_RP.c.uuid.in_(bindparam("uuids", expanding=True)))


def lock_providers(conn: Connection, which: sqlalchemy.ColumnElement[bool]) -> list[LockedProvider]:
    """Row-lock the providers matching ``which``, in id order, until commit."""
    return [LockedProvider(*row) for row in conn.execute(_locking(which))]


def lock_named(conn: Connection, uuids: list[str]) -> list[LockedProvider]:
    """:func:`lock_providers` of the providers whose uuid is one of ``uuids``."""
    return [LockedProvider(*row) for row in conn.execute(_LOCK_NAMED, {"uuids": uuids})]


def named_providers(conn: Connection, writes: list[ConsumerWrite]) -> dict[str, LockedProvider]:
    """The providers the writes allocate on, locked; the first missing one is refused."""
    wanted = list(dict.fromkeys(u for w in writes for u in w.allocations))
    # Exact matches only (MySQL's collation would let an upper-case uuid in).
    found = {p.uuid: p for p in lock_named(conn, wanted) if p.uuid in wanted}
    for uuid in wanted:
        if uuid not in found:
            raise exceptions.UnknownAllocationProvider(uuid)
    return found
