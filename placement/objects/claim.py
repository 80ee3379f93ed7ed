"""The claim: replacing the allocations of the consumers a request names.

Writing allocations replaces the *whole* set of every consumer named in the
request, in one transaction, with the checks of upstream Placement
(:mod:`claim_checks`). The consumers' side of it (owners, generations, new
consumers) is :mod:`claim_consumers`; the providers' locks
:mod:`claim_providers`.

Concurrency. Capacity is only as good as the usage it was checked against,
so every attempt is a fresh transaction that reads the providers'
generations *first*, then their usage and inventory, then writes, and ends
with a compare-and-swap of each touched provider's generation. Every write
that can raise a provider's usage or lower its capacity bumps its
generation, so when all our swaps succeed nothing we read has changed: no
overcommit, whatever the isolation level. A lost swap rolls the attempt
back and the whole attempt runs again, up to
``[placement] allocation_conflict_retry_count`` times.

To keep those retries rare, an attempt first row-locks its providers
(:mod:`claim_providers`): concurrent claims on one provider then wait for
each other instead of racing and losing. Consumer generations are the
client's business: a mismatch is a 409, never retried.

The database may abort an attempt too (a deadlock; on Galera a lost
certification, at ``COMMIT`` or mid-statement; a connection cut by a proxy
failing over): the attempt runs again, all of a claim's attempts within one
retry time (``[placement_database] db_max_retry_time``). A ``COMMIT`` that
lost its connection is settled by reading back what landed
(:mod:`claim_doubt`) before anything runs again, so a retry never claims
twice nor refuses a claim that was made.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

import sqlalchemy
from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db, metrics
from placement.db import tables
from placement.objects import claim_doubt, exceptions, resource_class
from placement.objects import consumer as consumer_obj
from placement.objects import resource_provider as rp_obj
from placement.objects.claim_checks import Item, check
from placement.objects.claim_consumers import (
    ConsumerCreateRace,
    ConsumerWrite,
    Owner,
    UnknownOwner,
    prepare_consumers,
    resolve_owners,
    settle,
)
from placement.objects.claim_providers import LockedProvider, lock_providers, named_providers

LOG = logging.getLogger(__name__)

T = TypeVar("T")

_ALLOC = tables.allocations
_RP = tables.resource_providers


class _NotNew(Exception):
    """A consumer the client called new (generation null) exists after all."""


class _Claim:
    """One claim's attempts: what they know of owners, and what the last one wrote.

    The first attempt inserts consumers the client says are new (generation
    null) without looking for them first; if one exists after all, the
    write starts again reading first (:class:`_NotNew`).
    """

    def __init__(self, writes: list[ConsumerWrite]) -> None:
        self.writes = writes
        self.owners: dict[str, Owner] = {}
        self.optimistic = True
        #: What the last attempt's COMMIT would leave (see :mod:`claim_doubt`).
        self.marks: list[claim_doubt.Mark] = []

    def attempt(self, conn: Connection) -> None:
        optimistic, self.optimistic = self.optimistic, False
        try:
            consumers = write(conn, self.writes, dict(self.owners), optimistic=optimistic)
        except ConsumerCreateRace:
            if optimistic:
                raise _NotNew() from None
            raise
        self.marks = claim_doubt.marks(self.writes, consumers)


def replace(engine: Engine, writes: list[ConsumerWrite], *, attempts: int) -> None:
    """Replace the allocations of every consumer in ``writes``, all or nothing.

    Usually the owners already exist and are read inside the write's own
    transaction (one connection, one transaction per claim); the first use
    of a project, user or type creates it first, in a transaction of its own.
    An optimistic first attempt that met an existing consumer does not count
    against ``attempts`` (it lost no race). A ``COMMIT`` in doubt is judged
    by :func:`claim_doubt.verdict`: landed, the claim is done; not landed, it
    runs again; unknown, :class:`~placement.db.CommitInDoubt` goes up.
    """
    budget = db.retry_policy_of(engine).budget()
    claim = _Claim(writes)
    doubt: db.CommitInDoubt | None = None
    while True:
        try:
            retry_on_conflict(engine, claim.attempt, attempts=attempts, budget=budget)
            return
        except _NotNew:
            continue
        except UnknownOwner:
            claim.owners = resolve_owners(engine, writes)
        except db.CommitInDoubt as lost:
            doubt = lost
            if _landed(engine, claim, budget, doubt):
                return
        except (exceptions.StaleGeneration, exceptions.ConcurrentUpdate):
            # After a doubt, a consumer or provider that moved may have moved
            # by our hand.
            if doubt is None or not _landed(engine, claim, budget, doubt):
                raise


def _landed(engine: Engine, claim: _Claim, budget: db.Budget, doubt: db.CommitInDoubt) -> bool:
    """After the lost COMMIT ``doubt``: True if it landed, False if the claim
    may run again; ``doubt`` raised again when nobody can tell, the
    database unreachable included (the claim may still have landed)."""
    try:
        found = claim_doubt.verdict(engine, claim.marks, budget)
    except sqlalchemy.exc.DBAPIError:
        raise doubt from None
    LOG.warning("A claim's COMMIT lost its connection (%s); it %s", doubt.orig, found.value)
    if found is claim_doubt.Verdict.LANDED:
        return True
    pause = budget.next_pause() if found is claim_doubt.Verdict.NOT_LANDED else None
    if pause is None:
        raise doubt
    time.sleep(pause)
    return False


def retry_on_conflict(
    engine: Engine,
    attempt: Callable[[Connection], T],
    *,
    attempts: int,
    budget: db.Budget | None = None,
) -> T:
    """Run ``attempt`` in a fresh writer transaction until no provider moved.

    A lost provider compare-and-swap (or a consumer created concurrently)
    rolls the attempt back; after ``attempts`` tries: :class:`ConcurrentUpdate`.
    A consumer's lost compare-and-swap is the client's business: not retried.
    Database aborts are retried within ``budget`` (None: a fresh one), shared
    by every attempt.
    """
    budget = budget or db.retry_policy_of(engine).budget()
    for number in range(1, attempts + 1):
        try:
            return db.run_in_transaction(engine, attempt, write=True, budget=budget)
        except exceptions.ConcurrentUpdate as exc:
            if exc.generation_of != "provider":
                raise
        except ConsumerCreateRace:
            pass
        LOG.debug("Allocation write lost a race (attempt %d of %d), retrying", number, attempts)
        if number < attempts:
            metrics.server_retry(metrics.RETRY_GENERATION)
    LOG.warning("Exceeded retry limit of %d on allocations write", attempts)
    raise exceptions.ConcurrentUpdate(None)


def write(
    conn: Connection,
    writes: list[ConsumerWrite],
    owners: dict[str, Owner],
    *,
    optimistic: bool = False,
) -> list[consumer_obj.Consumer]:
    """One attempt of :func:`replace` inside the caller's transaction.

    Raises :class:`ConcurrentUpdate` when a provider changed since
    this attempt read it: the caller must roll back and try again.
    ``owners`` and ``optimistic`` as for :func:`prepare_consumers`.
    Returns the consumers as the attempt found (or created) them.
    """
    consumers = prepare_consumers(conn, writes, owners, optimistic=optimistic)
    apply(conn, writes, owners, consumers, named_providers(conn, writes))
    return consumers


_DELETE_HELD = delete(_ALLOC).where(
    _ALLOC.c.consumer_id.in_(bindparam("consumers", expanding=True))
)
_INSERT = insert(_ALLOC)


def apply(
    conn: Connection,
    writes: list[ConsumerWrite],
    owners: dict[str, Owner],
    consumers: list[consumer_obj.Consumer],
    providers: Mapping[str, LockedProvider | rp_obj.Provider],
) -> dict[str, int]:
    """Check and write the allocations, then claim consumers and providers.

    ``providers`` holds at least the providers the writes name, with the
    generation to compare against (read before any usage). Returns the new
    generation of every provider bumped, by uuid.
    """
    items, removed_from = _items(conn, writes, providers)
    touched = {p.id: p for p in providers.values()}
    if removed_from:
        touched.update((p.id, p) for p in lock_providers(conn, _RP.c.id.in_(removed_from)))
    # Generations were read before this point; anything committed after
    # those reads moves a generation and makes the final swap fail.
    check(conn, items, {w.uuid for w in writes})
    _replace_rows(conn, writes, items)
    settle(conn, writes, owners, consumers, {i.consumer for i in items})
    bumped = {i.provider_id for i in items}
    return {
        provider.uuid: rp_obj.increment_generation(conn, provider.id, provider.generation)
        for provider in sorted((touched[i] for i in bumped), key=lambda p: p.id)
    }


def _replace_rows(conn: Connection, writes: list[ConsumerWrite], items: list[Item]) -> None:
    """Delete what the writes' consumers held, insert the items (removals are not rows)."""
    conn.execute(_DELETE_HELD, {"consumers": [w.uuid for w in writes]})
    now = tables.utcnow()
    rows = [
        {
            "resource_provider_id": i.provider_id,
            "resource_class_id": i.class_id,
            "consumer_id": i.consumer,
            "used": i.amount,
            "created_at": now,
        }
        for i in items
        if i.amount
    ]
    if rows:
        conn.execute(_INSERT, rows)


def _items(
    conn: Connection,
    writes: list[ConsumerWrite],
    providers: Mapping[str, LockedProvider | rp_obj.Provider],
) -> tuple[list[Item], set[int]]:
    """The write as items, in request order, plus removals for emptied consumers.

    Returns the items and the ids of providers that only appear because an
    emptied consumer held something there.
    """
    class_ids = resource_class_ids(
        conn, [rc for w in writes for share in w.allocations.values() for rc in share]
    )
    items: list[Item] = []
    for wanted in writes:
        for uuid, resources in wanted.allocations.items():
            provider = providers[uuid]
            items.extend(
                Item(wanted.uuid, provider.id, uuid, class_ids[rc], rc, amount)
                for rc, amount in resources.items()
            )
    emptied = [w.uuid for w in writes if not w.allocations]
    removals = _removals(conn, emptied) if emptied else []
    items += removals
    return items, {i.provider_id for i in removals if i.provider_uuid not in providers}


def _removals(conn: Connection, emptied: list[str]) -> list[Item]:
    """What the ``emptied`` consumers hold, as items of amount 0."""
    rps, classes = tables.resource_providers, tables.resource_classes
    held = conn.execute(
        select(_ALLOC.c.consumer_id, rps.c.id, rps.c.uuid, classes.c.id, classes.c.name)
        .join(rps, rps.c.id == _ALLOC.c.resource_provider_id)
        .join(classes, classes.c.id == _ALLOC.c.resource_class_id)
        .where(_ALLOC.c.consumer_id.in_(emptied))
        .order_by(_ALLOC.c.id)
    )
    return [Item(*row, 0) for row in held]


def resource_class_ids(conn: Connection, names: list[str]) -> dict[str, int]:
    """Class ids by name; :class:`ResourceClassNotFound` for the first unknown."""
    try:
        return resource_class.resource_class_ids(conn, names)
    except exceptions.ResourceClassNotFound:
        # Upstream names only the first unknown class, in request order.
        for name in names:
            resource_class.resource_class_id(conn, name)
        raise
