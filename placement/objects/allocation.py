"""Allocations: how much of which class each consumer holds on each provider.

Writing allocations replaces the *whole* set of every consumer named in the
request, in one transaction, with the checks of upstream Placement (provider
exists, class exists, inventory exists, min/max/step, capacity unless the
change does not worsen an existing overcommit).

Concurrency. Capacity is only as good as the usage it was checked against,
so every attempt is a fresh transaction that reads the providers'
generations *first*, then their usage and inventory, then writes, and ends
with a compare-and-swap of each touched provider's generation. Every write
that can raise a provider's usage or lower its capacity bumps its
generation, so when all our swaps succeed nothing we read has changed: no
overcommit, whatever the isolation level. A lost swap rolls the attempt
back and the whole attempt runs again, up to
``[placement] allocation_conflict_retry_count`` times.

To keep those retries rare, an attempt first row-locks its providers (in id
order, so writers never deadlock on each other): concurrent claims on one
provider then wait for each other instead of racing and losing. SQLite
needs no locks, its writers are serialized. Consumer generations are the
client's business: a mismatch is a 409, never retried.
"""

from __future__ import annotations

import collections
import datetime
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

import sqlalchemy
from sqlalchemy import bindparam, case, delete, func, insert, select
from sqlalchemy.engine import Connection, Engine

from placement import db, metrics
from placement.db import tables
from placement.objects import conditions, exceptions, resource_class
from placement.objects import consumer as consumer_obj
from placement.objects import resource_provider as rp_obj

LOG = logging.getLogger(__name__)

T = TypeVar("T")

_ALLOC = tables.allocations
_RP = tables.resource_providers

#: ``ConsumerWrite.generation`` for writes below microversion 1.28 (no check).
UNCHECKED = object()


class _ConsumerCreateRace(Exception):
    """Another request created one of our new consumers; run the attempt again."""


@dataclass(frozen=True)
class ConsumerWrite:
    """The allocations one consumer should hold after the write.

    ``allocations`` maps provider uuid → class name → amount (≥ 1); empty
    removes everything the consumer holds. ``generation`` is what the client
    expects (None: the consumer must not exist) or :data:`UNCHECKED`.
    ``consumer_type`` None leaves the type alone (NULL for a new consumer).
    """

    uuid: str
    project_id: str
    user_id: str
    allocations: dict[str, dict[str, int]]
    generation: int | None | object = UNCHECKED
    consumer_type: str | None = None


@dataclass(frozen=True)
class Owner:
    """Internal ids of a write's project, user and (maybe) consumer type."""

    project_id: int
    user_id: int
    consumer_type_id: int | None


@dataclass(frozen=True)
class _Item:
    """One (consumer, provider, class, amount) of the write; amount 0 = removal."""

    consumer: str
    provider_id: int
    provider_uuid: str
    class_id: int
    class_name: str
    amount: int


# --- reading ------------------------------------------------------------------


@dataclass
class ProviderShare:
    """What one consumer holds on one provider, and that provider's generation."""

    generation: int
    resources: dict[str, int] = field(default_factory=dict)


@dataclass
class ConsumerAllocations:
    """Everything one consumer holds (``GET /allocations/{consumer_uuid}``)."""

    providers: dict[str, ProviderShare]
    project_id: str
    user_id: str
    generation: int
    consumer_type: str
    last_modified: datetime.datetime | None


@dataclass
class ConsumerShare:
    """What one consumer holds on a provider, and the consumer's generation."""

    generation: int
    resources: dict[str, int] = field(default_factory=dict)


@dataclass
class ProviderAllocations:
    """Everything held on one provider (``GET /resource_providers/{u}/allocations``)."""

    generation: int
    consumers: dict[str, ConsumerShare]
    last_modified: datetime.datetime | None


def consumer_rows(
    conn: Connection, consumer_uuid: str, *, with_roots: bool = False
) -> list[sqlalchemy.Row]:
    """What ``consumer_uuid`` holds, a row per allocation in the order written.

    Each row: the provider's ``uuid`` and ``generation``, ``class_name``,
    ``used``, ``created_at``; the consumer's ``consumer_generation``,
    ``project_id`` and ``user_id`` (internal ids), ``project`` and ``user``
    (external ids) and ``consumer_type`` (None when unset); with
    ``with_roots``, the ``root_uuid`` of the provider's tree too.
    """
    rp, c, rc = tables.resource_providers, tables.consumers, tables.resource_classes
    p, u, ct = tables.projects, tables.users, tables.consumer_types
    columns = [
        rp.c.uuid,
        rp.c.generation,
        rc.c.name.label("class_name"),
        _ALLOC.c.used,
        _ALLOC.c.created_at,
        c.c.generation.label("consumer_generation"),
        c.c.project_id,
        c.c.user_id,
        p.c.external_id.label("project"),
        u.c.external_id.label("user"),
        ct.c.name.label("consumer_type"),
    ]
    source = (
        _ALLOC.join(rp, rp.c.id == _ALLOC.c.resource_provider_id)
        .join(c, c.c.uuid == _ALLOC.c.consumer_id)
        .join(p, p.c.id == c.c.project_id)
        .join(u, u.c.id == c.c.user_id)
        .join(rc, rc.c.id == _ALLOC.c.resource_class_id)
        .outerjoin(ct, ct.c.id == c.c.consumer_type_id)
    )
    if with_roots:
        root = rp.alias("root")
        columns.append(root.c.uuid.label("root_uuid"))
        source = source.join(root, root.c.id == func.coalesce(rp.c.root_provider_id, rp.c.id))
    query = (
        select(*columns)
        .select_from(source)
        .where(_ALLOC.c.consumer_id == consumer_uuid)
        .order_by(_ALLOC.c.id)
    )
    return list(conn.execute(query).all())


def get_for_consumer(engine: Engine, consumer_uuid: str) -> ConsumerAllocations | None:
    """What ``consumer_uuid`` holds, or None when it holds nothing."""
    with db.reader(engine) as conn:
        rows = consumer_rows(conn, consumer_uuid)
    if not rows:
        return None
    providers: dict[str, ProviderShare] = {}
    for row in rows:
        share = providers.setdefault(row.uuid, ProviderShare(row.generation))
        share.resources[row.class_name] = row.used
    first = rows[0]
    return ConsumerAllocations(
        providers=providers,
        project_id=first.project,
        user_id=first.user,
        generation=first.consumer_generation,
        consumer_type=first.consumer_type or consumer_obj.UNKNOWN_TYPE,
        last_modified=_newest(row.created_at for row in rows),
    )


def get_for_provider(engine: Engine, provider_uuid: str) -> ProviderAllocations | None:
    """What every consumer holds on ``provider_uuid``; None if no such provider."""
    c, rc = tables.consumers, tables.resource_classes
    with db.reader(engine) as conn:
        provider = rp_obj.get_by_uuid(conn, provider_uuid)
        if provider is None:
            return None
        rows = conn.execute(
            select(
                _ALLOC.c.consumer_id,
                c.c.generation,
                rc.c.name.label("class_name"),
                _ALLOC.c.used,
                _ALLOC.c.created_at,
            )
            .select_from(
                _ALLOC.join(c, c.c.uuid == _ALLOC.c.consumer_id).join(
                    rc, rc.c.id == _ALLOC.c.resource_class_id
                )
            )
            .where(_ALLOC.c.resource_provider_id == provider.id)
            .order_by(_ALLOC.c.id)
        ).all()
    consumers: dict[str, ConsumerShare] = {}
    for row in rows:
        share = consumers.setdefault(row.consumer_id, ConsumerShare(row.generation))
        share.resources[row.class_name] = row.used
    return ProviderAllocations(
        provider.generation, consumers, _newest(row.created_at for row in rows)
    )


def _newest(stamps: Iterable[datetime.datetime | None]) -> datetime.datetime | None:
    present = [s for s in stamps if s is not None]
    return max(present) if present else None


# --- deleting -------------------------------------------------------------------


def delete_for_consumer(engine: Engine, consumer_uuid: str) -> None:
    """Remove everything ``consumer_uuid`` holds and the consumer itself.

    No generation is checked and no provider generation changes (as
    upstream). :class:`NoAllocations` when the consumer holds nothing.
    """
    c = tables.consumers

    def run(conn: Connection) -> None:
        held = conn.execute(
            select(_ALLOC.c.id)
            .join(c, c.c.uuid == _ALLOC.c.consumer_id)
            .where(_ALLOC.c.consumer_id == consumer_uuid)
            .limit(1)
        ).first()
        if held is None:
            raise exceptions.NoAllocations(consumer_uuid)
        conn.execute(delete(_ALLOC).where(_ALLOC.c.consumer_id == consumer_uuid))
        consumer_obj.delete_if_unused(conn, [consumer_uuid])

    db.run_in_transaction(engine, run, write=True)


# --- writing --------------------------------------------------------------------


def resolve_owners(engine: Engine, writes: Iterable[ConsumerWrite]) -> dict[str, Owner]:
    """Project, user and type ids for each write, creating missing rows.

    Runs before (and outside) the allocation transaction: those rows are
    kept even if the write then fails, as upstream keeps them.
    """
    owners = {}
    for wanted in writes:
        owners[wanted.uuid] = Owner(
            *consumer_obj.owner_ids(engine, wanted.project_id, wanted.user_id, wanted.consumer_type)
        )
    return owners


class _UnknownOwner(Exception):
    """A write names a project, user or type with no row yet."""


def existing_owners(conn: Connection, writes: Iterable[ConsumerWrite]) -> dict[str, Owner]:
    """:func:`resolve_owners` inside the caller's transaction, creating nothing:
    one read per distinct owner; :class:`_UnknownOwner` if a row is missing."""
    found: dict[tuple[str, str, str | None], Owner] = {}
    owners = {}
    for wanted in writes:
        key = (wanted.project_id, wanted.user_id, wanted.consumer_type)
        owner = found.get(key)
        if owner is None:
            ids = consumer_obj.existing_owner_ids(conn, *key)
            if ids is None:
                raise _UnknownOwner()
            owner = found[key] = Owner(*ids)
        owners[wanted.uuid] = owner
    return owners


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
        except _ConsumerCreateRace:
            if optimistic:
                raise _NotNew() from None
            raise

    try:
        retry_on_conflict(engine, attempt, attempts=attempts)
    except _NotNew:
        retry_on_conflict(engine, attempt, attempts=attempts)
    except _UnknownOwner:
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
        except _ConsumerCreateRace:
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
    _check(conn, items, {w.uuid for w in writes})

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

    visited = {i.consumer for i in items}
    for consumer in consumers:
        owner = owners[consumer.uuid]
        consumer_obj.set_owner(
            conn,
            consumer,
            project_id=owner.project_id,
            user_id=owner.user_id,
            consumer_type_id=owner.consumer_type_id,
        )
        # Only consumers that had something to write or remove are bumped
        # (as upstream); the others are deleted just below. One this write
        # created already stands at its bumped generation.
        if consumer.uuid in visited and not consumer.fresh:
            consumer_obj.claim(conn, consumer)
    # A consumer left without allocations goes, even one that never had any
    # (upstream keeps that one, at generation 0, where no client can see it).
    consumer_obj.delete_if_unused(conn, {w.uuid for w in writes if not w.allocations})

    bumped = {i.provider_id for i in items}
    return {
        provider.uuid: rp_obj.increment_generation(conn, provider.id, provider.generation)
        for provider in sorted((touched[i] for i in bumped), key=lambda p: p.id)
    }


def prepare_consumers(
    conn: Connection,
    writes: list[ConsumerWrite],
    owners: dict[str, Owner],
    *,
    optimistic: bool = False,
) -> list[consumer_obj.Consumer]:
    """Check the expected generations, then create the consumers that are new.

    ``owners`` holds the owner ids known so far; the others are read here
    and added to it (:class:`_UnknownOwner` when a row is missing).
    ``optimistic``: take every write whose expected generation is null for
    a new consumer and insert it without reading first (the usual claim),
    its owners read by the insert itself where the database returns
    inserted rows; one that exists after all raises
    :class:`_ConsumerCreateRace` at the insert, and the next attempt reads.
    """
    unread = {w.uuid for w in writes if optimistic and w.generation is None}
    owned_by_insert = unread if conn.dialect.insert_returning else set()
    owners.update(
        existing_owners(
            conn, [w for w in writes if w.uuid not in owners and w.uuid not in owned_by_insert]
        )
    )
    existing = consumer_obj.get_by_uuids(conn, [w.uuid for w in writes if w.uuid not in unread])
    for wanted in writes:
        if wanted.generation is UNCHECKED or wanted.uuid in unread:
            continue
        current = existing.get(wanted.uuid)
        if current is None and wanted.generation is not None:
            raise consumer_generation_conflict("null", wanted.generation)
        if current is not None and current.generation != wanted.generation:
            raise consumer_generation_conflict(current.generation, wanted.generation)
    consumers = []
    for wanted in writes:
        found = existing.get(wanted.uuid)
        if found is None:
            try:
                found = _create(conn, wanted, owners)
            except sqlalchemy.exc.IntegrityError:
                raise _ConsumerCreateRace() from None
        consumers.append(found)
    return consumers


def _create(
    conn: Connection, wanted: ConsumerWrite, owners: dict[str, Owner]
) -> consumer_obj.Consumer:
    """Insert ``wanted``'s consumer; its owners from ``owners`` or, not
    there yet, looked up by the insert (and then added to ``owners``)."""
    # One that gets allocations would be claimed (0 → 1) by apply().
    generation = 1 if any(wanted.allocations.values()) else 0
    owner = owners.get(wanted.uuid)
    if owner is not None:
        return consumer_obj.create(
            conn,
            wanted.uuid,
            project_id=owner.project_id,
            user_id=owner.user_id,
            consumer_type_id=owner.consumer_type_id,
            generation=generation,
        )
    created = consumer_obj.create_owned(
        conn,
        wanted.uuid,
        project=wanted.project_id,
        user=wanted.user_id,
        consumer_type=wanted.consumer_type,
        generation=generation,
    )
    if created is None:
        raise _UnknownOwner()
    owners[wanted.uuid] = Owner(created.project_id, created.user_id, created.consumer_type_id)
    return created


def consumer_generation_conflict(expected: object, given: object) -> exceptions.StaleGeneration:
    return exceptions.StaleGeneration(
        f"consumer generation conflict - expected {expected} but got {given}"
    )


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
    """Row-lock the providers matching ``which``, in id order, until commit.

    Concurrent writers of the same provider then queue here instead of all
    doing the work and all but one losing the final compare-and-swap.
    SQLite has no row locks and needs none: its writers are serialized.
    """
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


def _items(
    conn: Connection,
    writes: list[ConsumerWrite],
    providers: Mapping[str, LockedProvider | rp_obj.Provider],
) -> tuple[list[_Item], set[int]]:
    """The write as items, in request order, plus removals for emptied consumers.

    Returns the items and the ids of providers that only appear because an
    emptied consumer held something there.
    """
    class_ids = resource_class_ids(
        conn, [rc for w in writes for share in w.allocations.values() for rc in share]
    )
    items: list[_Item] = []
    for wanted in writes:
        for uuid, resources in wanted.allocations.items():
            provider = providers[uuid]
            items.extend(
                _Item(wanted.uuid, provider.id, uuid, class_ids[rc], rc, amount)
                for rc, amount in resources.items()
            )
    emptied = [w.uuid for w in writes if not w.allocations]
    removed_from: set[int] = set()
    if emptied:
        rps, classes = tables.resource_providers, tables.resource_classes
        held = conn.execute(
            select(_ALLOC.c.consumer_id, rps.c.id, rps.c.uuid, classes.c.id, classes.c.name)
            .join(rps, rps.c.id == _ALLOC.c.resource_provider_id)
            .join(classes, classes.c.id == _ALLOC.c.resource_class_id)
            .where(_ALLOC.c.consumer_id.in_(emptied))
            .order_by(_ALLOC.c.id)
        )
        for consumer, provider_id, provider_uuid, class_id, class_name in held:
            items.append(_Item(consumer, provider_id, provider_uuid, class_id, class_name, 0))
            if provider_uuid not in providers:
                removed_from.add(provider_id)
    return items, removed_from


def resource_class_ids(conn: Connection, names: list[str]) -> dict[str, int]:
    """Class ids by name; :class:`ResourceClassNotFound` for the first unknown."""
    try:
        return resource_class.resource_class_ids(conn, names)
    except exceptions.ResourceClassNotFound:
        # Upstream names only the first unknown class, in request order.
        for name in names:
            resource_class.resource_class_id(conn, name)
        raise


def _check(conn: Connection, items: list[_Item], consumers: set[str]) -> None:
    """Upstream's inventory, constraint and capacity checks, in its order."""
    if not items:
        return
    # A set built in item order iterates as upstream's did: same class list text.
    class_ids = set(i.class_id for i in items)
    class_names = {i.class_id: i.class_name for i in items}
    provider_ids = {i.provider_id for i in items}
    inventory = _inventories_and_usage(conn, provider_ids, class_ids, consumers)

    with_inventory = {provider for provider, _ in inventory}
    missing = list(
        dict.fromkeys(i.provider_uuid for i in items if i.provider_id not in with_inventory)
    )
    if missing:
        classes = ", ".join(class_names[c] for c in class_ids)
        raise exceptions.InvalidAllocation(
            f"Inventory for '{classes}' on resource provider '{', '.join(missing)}' invalid."
        )

    requested: dict[tuple[int, int], int] = collections.defaultdict(int)
    for item in items:
        key = (item.provider_id, item.class_id)
        requested[key] += item.amount
        if not item.amount:
            continue
        inv = inventory.get(key)
        if inv is None:
            raise exceptions.InvalidAllocation(
                f"Inventory for '{item.class_name}' on resource provider "
                f"'{item.provider_uuid}' invalid."
            )
        if item.amount < inv.min_unit or item.amount > inv.max_unit or item.amount % inv.step_size:
            raise exceptions.InvalidAllocation(
                _refusal(item, "would violate inventory constraints")
            )
        before = None if inv.used is None else int(inv.used)
        used = (before or 0) - int(inv.ours or 0)
        capacity = conditions.capacity(inv.total, inv.reserved, inv.allocation_ratio)
        if capacity < used + item.amount or capacity < used + requested[key]:
            # Over capacity is fine only if it is no worse than before.
            if before is None or used + requested[key] > before:
                LOG.warning(
                    "Over capacity for %s on resource provider %s. Needed: %s, "
                    "Used: %s, Capacity: %s",
                    item.class_name,
                    item.provider_uuid,
                    item.amount,
                    used,
                    capacity,
                )
                raise exceptions.InvalidAllocation(_refusal(item, "would exceed the capacity"))


def _refusal(item: _Item, reason: str) -> str:
    return (
        f"Unable to create allocation for '{item.class_name}' on resource provider "
        f"'{item.provider_uuid}'. The requested amount {reason}."
    )


def _inventories_and_usage(
    conn: Connection, provider_ids: set[int], class_ids: set[int], consumers: set[str]
) -> dict[tuple[int, int], sqlalchemy.Row]:
    """(provider, class) → its inventory, with ``used`` (now, by everyone;
    None when nothing is allocated) and ``ours`` (by ``consumers``), in one read."""
    rows = conn.execute(
        _INVENTORIES_AND_USAGE,
        {"providers": list(provider_ids), "classes": list(class_ids), "consumers": list(consumers)},
    )
    return {(row.resource_provider_id, row.resource_class_id): row for row in rows}


def _inventories_and_usage_query() -> sqlalchemy.Select:
    inv = tables.inventories
    providers: sqlalchemy.BindParameter[int] = bindparam("providers", expanding=True)
    classes: sqlalchemy.BindParameter[int] = bindparam("classes", expanding=True)
    consumers: sqlalchemy.BindParameter[str] = bindparam("consumers", expanding=True)
    usage = (
        select(
            _ALLOC.c.resource_provider_id,
            _ALLOC.c.resource_class_id,
            func.sum(_ALLOC.c.used).label("used"),
            func.sum(case((_ALLOC.c.consumer_id.in_(consumers), _ALLOC.c.used), else_=0)).label(
                "ours"
            ),
        )
        .where(
            _ALLOC.c.resource_provider_id.in_(providers), _ALLOC.c.resource_class_id.in_(classes)
        )
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
        .subquery()
    )
    return (
        select(
            inv.c.resource_provider_id,
            inv.c.resource_class_id,
            inv.c.total,
            inv.c.reserved,
            inv.c.min_unit,
            inv.c.max_unit,
            inv.c.step_size,
            inv.c.allocation_ratio,
            usage.c.used,
            usage.c.ours,
        )
        .select_from(
            inv.outerjoin(
                usage,
                (usage.c.resource_provider_id == inv.c.resource_provider_id)
                & (usage.c.resource_class_id == inv.c.resource_class_id),
            )
        )
        .where(inv.c.resource_provider_id.in_(providers), inv.c.resource_class_id.in_(classes))
    )


_INVENTORIES_AND_USAGE = _inventories_and_usage_query()
