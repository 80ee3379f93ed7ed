"""A claim whose ``COMMIT`` lost its connection: did it land?

When the database node a claim wrote through dies during ``COMMIT`` (a
Galera node killed behind HAProxy), the client's request is not lost, but
its answer is: the node may have committed and replicated the write-set, or
not. Running the claim again blindly would be wrong either way it went: it
would answer 409 (the consumer's generation moved: by our own claim), or,
for a client that sends no generation, answer after a second write.

A claim leaves its mark on every consumer it names: each is created at
generation 1, moved up by one, or deleted (emptied), and holds exactly what
the claim wrote. So, reading the consumers back on a fresh connection (once
the proxy has failed over), the claim either *landed* (every consumer is as
the claim left it), *did not land* (every consumer is as the claim found
it: it can run again), or someone else wrote in between and nobody can
tell (:attr:`Verdict.UNKNOWN`: the API keeps saying "in doubt").
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.db import tables
from placement.objects import consumer as consumer_obj
from placement.objects.claim_consumers import ConsumerWrite


class Verdict(enum.Enum):
    """What the consumers say of a claim whose COMMIT was lost (worded for logs)."""

    LANDED = "landed"
    NOT_LANDED = "did not land"
    UNKNOWN = "may or may not have landed"


@dataclass(frozen=True)
class Mark:
    """One consumer as a claim attempt found it and as its commit would leave it.

    Generations are None for a consumer that does not exist (before: the
    attempt created it; after: the attempt deleted it, or never created it).
    """

    uuid: str
    before: int | None
    after: int | None
    allocations: dict[str, dict[str, int]]


def marks(
    writes: Sequence[ConsumerWrite], consumers: Sequence[consumer_obj.Consumer]
) -> list[Mark]:
    """What one attempt does to each consumer (``consumers`` as
    ``prepare_consumers`` returned them, one per write, in order)."""
    found = []
    for wanted, consumer in zip(writes, consumers, strict=True):
        before = None if consumer.fresh else consumer.generation
        if not wanted.allocations:
            after = None
        else:
            after = consumer.generation if consumer.fresh else consumer.generation + 1
        found.append(Mark(wanted.uuid, before, after, wanted.allocations))
    return found


def verdict(engine: Engine, claim: Sequence[Mark], budget: db.Budget) -> Verdict:
    """Read the consumers back (retried within ``budget``) and judge."""
    generations, held = db.run_in_transaction(
        engine,
        lambda conn: _read_causally(conn, [m.uuid for m in claim]),
        write=False,
        budget=budget,
    )
    if all(_left_as_claimed(m, generations.get(m.uuid), held.get(m.uuid, {})) for m in claim):
        return Verdict.LANDED
    if all(generations.get(m.uuid) == m.before for m in claim):
        return Verdict.NOT_LANDED
    return Verdict.UNKNOWN


def _left_as_claimed(mark: Mark, generation: int | None, held: dict[str, dict[str, int]]) -> bool:
    return generation == mark.after and held == (mark.allocations if mark.after else {})


def _read_causally(
    conn: Connection, uuids: list[str]
) -> tuple[dict[str, int], dict[str, dict[str, dict[str, int]]]]:
    """:func:`_read`, on a Galera node once it has applied what the cluster committed.

    The proxy may have handed us a node that has not yet applied the
    write-set our lost ``COMMIT`` sent through the dead one: read there as
    is, a claim that landed would look as if it had not, run again, and
    answer an error for what it did hold.
    """
    with db.causal_reads(conn):
        return _read(conn, uuids)


def _read(
    conn: Connection, uuids: list[str]
) -> tuple[dict[str, int], dict[str, dict[str, dict[str, int]]]]:
    """Each consumer's generation, and what it holds: provider uuid → class → amount."""
    generations = {
        uuid: consumer.generation
        for uuid, consumer in consumer_obj.get_by_uuids(conn, uuids).items()
    }
    alloc, rps, classes = tables.allocations, tables.resource_providers, tables.resource_classes
    rows = conn.execute(
        select(alloc.c.consumer_id, rps.c.uuid, classes.c.name, alloc.c.used)
        .join(rps, rps.c.id == alloc.c.resource_provider_id)
        .join(classes, classes.c.id == alloc.c.resource_class_id)
        .where(alloc.c.consumer_id.in_(uuids))
    )
    held: dict[str, dict[str, dict[str, int]]] = {}
    for consumer, provider, name, used in rows:
        held.setdefault(consumer, {}).setdefault(provider, {})[name] = used
    return generations, held
