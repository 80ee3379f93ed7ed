"""The consumers' side of a claim: what each should hold, who owns it, its generation.

A claim names consumers by uuid with their project, user and type as
external ids; this module turns those into the ids the rows store, checks
the generations clients expect (a mismatch is a 409 that is never
retried: consumer generations are the client's business), creates the
consumers that are new, and after the allocations are written records each
consumer's owner, bumps the generation of those that changed and deletes
those left holding nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy.engine import Connection, Engine

from placement.objects import consumer as consumer_obj
from placement.objects import exceptions

#: ``ConsumerWrite.generation`` for writes below microversion 1.28 (no check).
UNCHECKED = object()


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


class UnknownOwner(Exception):
    """A write names a project, user or type with no row yet."""


class ConsumerCreateRace(Exception):
    """Another request created one of our new consumers; run the attempt again."""


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


def existing_owners(conn: Connection, writes: Iterable[ConsumerWrite]) -> dict[str, Owner]:
    """:func:`resolve_owners` inside the caller's transaction, creating nothing:
    one read per distinct owner; :class:`UnknownOwner` if a row is missing."""
    found: dict[tuple[str, str, str | None], Owner] = {}
    owners = {}
    for wanted in writes:
        key = (wanted.project_id, wanted.user_id, wanted.consumer_type)
        owner = found.get(key)
        if owner is None:
            ids = consumer_obj.existing_owner_ids(conn, *key)
            if ids is None:
                raise UnknownOwner()
            owner = found[key] = Owner(*ids)
        owners[wanted.uuid] = owner
    return owners


def prepare_consumers(
    conn: Connection,
    writes: list[ConsumerWrite],
    owners: dict[str, Owner],
    *,
    optimistic: bool = False,
) -> list[consumer_obj.Consumer]:
    """Check the expected generations, then create the consumers that are new.

    ``owners`` holds the owner ids known so far; the others are read here
    and added to it (:class:`UnknownOwner` when a row is missing).
    ``optimistic``: take every write whose expected generation is null for
    a new consumer and insert it without reading first (the usual claim),
    its owners read by the insert itself where the database returns
    inserted rows; one that exists after all raises
    :class:`ConsumerCreateRace` at the insert, and the next attempt reads.
    """
    unread = {w.uuid for w in writes if optimistic and w.generation is None}
    owned_by_insert = unread if conn.dialect.insert_returning else set()
    owners.update(
        existing_owners(
            conn, [w for w in writes if w.uuid not in owners and w.uuid not in owned_by_insert]
        )
    )
    read = [w for w in writes if w.uuid not in unread]
    existing = consumer_obj.get_by_uuids(conn, [w.uuid for w in read])
    _check_generations(read, existing)
    consumers = []
    for wanted in writes:
        found = existing.get(wanted.uuid)
        if found is None:
            try:
                found = _create(conn, wanted, owners)
            except sqlalchemy.exc.IntegrityError:
                raise ConsumerCreateRace() from None
        consumers.append(found)
    return consumers


def _check_generations(
    writes: Iterable[ConsumerWrite], existing: dict[str, consumer_obj.Consumer]
) -> None:
    """Refuse the first write whose expected generation is not the consumer's."""
    for wanted in writes:
        if wanted.generation is UNCHECKED:
            continue
        current = existing.get(wanted.uuid)
        if current is None and wanted.generation is not None:
            raise consumer_generation_conflict("null", wanted.generation)
        if current is not None and current.generation != wanted.generation:
            raise consumer_generation_conflict(current.generation, wanted.generation)


def _create(
    conn: Connection, wanted: ConsumerWrite, owners: dict[str, Owner]
) -> consumer_obj.Consumer:
    """Insert ``wanted``'s consumer; its owners from ``owners`` or, not
    there yet, looked up by the insert (and then added to ``owners``)."""
    # One that gets allocations would be claimed (0 → 1) by settle().
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
        raise UnknownOwner()
    owners[wanted.uuid] = Owner(created.project_id, created.user_id, created.consumer_type_id)
    return created


def consumer_generation_conflict(expected: object, given: object) -> exceptions.StaleGeneration:
    return exceptions.StaleGeneration(
        f"consumer generation conflict - expected {expected} but got {given}"
    )


def settle(
    conn: Connection,
    writes: list[ConsumerWrite],
    owners: dict[str, Owner],
    consumers: list[consumer_obj.Consumer],
    visited: set[str],
) -> None:
    """After the allocations are written: record each consumer's owner, bump
    the generation of those in ``visited`` (they had something to write or
    remove), delete those left without allocations."""
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
