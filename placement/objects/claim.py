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
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TypeVar

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db, metrics
from placement.db import tables
from placement.objects import consumer as consumer_obj
from placement.objects import exceptions, resource_class
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


def replace(engine: Engine, writes: list[ConsumerWrite], *, attempts: int) -> None:
    """Replace the allocations of every consumer in ``writes``, all or nothing.

    Usually the owners already exist and are read inside the write's own
    transaction (one connection, one transaction per claim); the first use
    of a project, user or type creates it first, in a transaction of its own.
    The first attempt inserts consumers the client says are new (generation
    null) without looking for them first; if one exists after all, the
    write starts again reading first, and that first attempt does not count
    against ``attempts`` (it lost no race).
    """
    first = True

    def attempt(conn: Connection, owners: dict[str, Owner] | None = None) -> None:
        nonlocal first
        optimistic, first = first, False
        try:
            write(conn, writes, dict(owners or {}), optimistic=optimistic)
        except ConsumerCreateRace:
            if optimistic:
                raise _NotNew() from None
            raise

    try:
        retry_on_conflict(engine, attempt, attempts=attempts)
    except _NotNew:
        retry_on_conflict(engine, attempt, attempts=attempts)
    except UnknownOwner:
        owners = resolve_owners(engine, writes)
        retry_on_conflict(engine, lambda conn: attempt(conn, owners), attempts=attempts)


def retry_on_conflict(engine: Engine, attempt: Callable[[Connection], T], *, attempts: int) -> T:
    """Run ``attempt`` in a fresh writer transaction until no provider moved.

    A lost provider compare-and-swap (or a consumer created concurrently)
    rolls the attempt back; after ``attempts`` tries: :class:`ConcurrentUpdate`.
    A consumer's lost compare-and-swap is the client's business: not retried.
    """
    for number in range(1, attempts + 1):
        try:
            return db.run_in_transaction(engine, attempt, write=True)
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
) -> None:
    """One attempt of :func:`replace` inside the caller's transaction.

    Raises :class:`ConcurrentUpdate` when a provider changed since
    this attempt read it: the caller must roll back and try again.
    ``owners`` and ``optimistic`` as for :func:`prepare_consumers`.
    """
    consumers = prepare_consumers(conn, writes, owners, optimistic=optimistic)
    apply(conn, writes, owners, consumers, named_providers(conn, writes))


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
