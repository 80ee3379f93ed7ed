"""Aggregates a provider belongs to.

An aggregate is only a uuid: a row in ``placement_aggregates`` is created the
first time a provider is associated with it and is never deleted. Nothing
checks that the uuid means anything elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy
from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.db import tables
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj

_AGG = tables.placement_aggregates
_RPA = tables.resource_provider_aggregates


def get_aggregates(conn: Connection, provider_id: int) -> list[str]:
    """Uuids of the provider's aggregates."""
    return list(
        conn.execute(
            select(_AGG.c.uuid)
            .join(_RPA, _RPA.c.aggregate_id == _AGG.c.id)
            .where(_RPA.c.resource_provider_id == provider_id)
            .order_by(_AGG.c.id)
        ).scalars()
    )


def list_for_provider(engine: Engine, provider: rp_obj.Provider) -> list[str]:
    with db.reader(engine) as conn:
        return get_aggregates(conn, provider.id)


def set_aggregates(
    engine: Engine, provider: rp_obj.Provider, uuids: Sequence[str], *, increment_generation: bool
) -> int:
    """Make ``uuids`` the provider's whole aggregate set; returns its generation.

    With ``increment_generation`` (microversion 1.19 on) the generation read
    in ``provider`` is compare-and-swapped first, whether or not the set
    changes (:class:`~placement.objects.exceptions.ConcurrentUpdate` when it
    moved). Without it, a concurrent writer of the same set shows up as a
    plain :class:`~placement.objects.exceptions.Conflict`.
    """
    ids = _ensure_aggregates(engine, uuids)

    def run(conn: Connection) -> int:
        generation = provider.generation
        if increment_generation:
            generation = rp_obj.increment_generation(conn, provider.id, provider.generation)
        current = set(
            conn.execute(
                select(_RPA.c.aggregate_id).where(_RPA.c.resource_provider_id == provider.id)
            ).scalars()
        )
        wanted = set(ids.values())
        if current - wanted:
            conn.execute(
                delete(_RPA).where(
                    _RPA.c.resource_provider_id == provider.id,
                    _RPA.c.aggregate_id.in_(current - wanted),
                )
            )
        if wanted - current:
            conn.execute(
                insert(_RPA),
                [
                    {"resource_provider_id": provider.id, "aggregate_id": i}
                    for i in sorted(wanted - current)
                ],
            )
        return generation

    try:
        return db.run_in_transaction(engine, run, write=True)
    except sqlalchemy.exc.IntegrityError as exc:
        raise exceptions.Conflict(f"Update conflict: {exc.orig}") from None


def _ensure_aggregates(engine: Engine, uuids: Sequence[str]) -> dict[str, int]:
    """Ids of the aggregates called ``uuids``, creating missing rows.

    Runs in its own transactions: aggregate rows are harmless even if the
    caller's write fails later, and a duplicate from a concurrent creator
    just means looking again.
    """
    wanted = list(dict.fromkeys(uuids))
    for _attempt in range(10):
        with db.reader(engine) as conn:
            ids = _existing(conn, wanted)
        missing = [uuid for uuid in wanted if uuid not in ids]
        if not missing:
            return ids
        try:
            with db.writer(engine) as conn:
                conn.execute(insert(_AGG), [{"uuid": uuid} for uuid in missing])
        except sqlalchemy.exc.IntegrityError:
            continue
    raise exceptions.ConcurrentUpdate(None, "aggregates kept being created concurrently")


#: Uuids looked up in one query: a body may list tens of thousands.
_BATCH = 1000


def _existing(conn: Connection, wanted: list[str]) -> dict[str, int]:
    """Ids of those of ``wanted`` that exist, matched as the database's
    collation matches them (as its unique key does: a case-insensitive
    MySQL collation finds ``ABC…`` for ``abc…``).

    One query per batch; where the collation matched other text than was
    asked (or a batch asks the same uuid in two cases), each uuid of the
    batch is then looked up on its own so the database decides.
    """
    ids: dict[str, int] = {}
    for start in range(0, len(wanted), _BATCH):
        batch = wanted[start : start + _BATCH]
        rows = dict(
            conn.execute(select(_AGG.c.uuid, _AGG.c.id).where(_AGG.c.uuid.in_(batch))).all()
        )
        if set(rows) <= set(batch) and len({uuid.lower() for uuid in batch}) == len(batch):
            ids.update((uuid, rows[uuid]) for uuid in batch if uuid in rows)
            continue
        for uuid in batch:
            found = conn.execute(select(_AGG.c.id).where(_AGG.c.uuid == uuid)).scalar()
            if found is not None:
                ids[uuid] = found
    return ids
