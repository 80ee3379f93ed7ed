"""Traits: lookups by name, listing, custom trait life cycle, provider traits.

Standard traits come from ``os_traits`` and are inserted by the start-up sync
in ``placement.db.standard``; this module creates and deletes custom ones and
replaces the set of traits a provider has.

Name comparisons are exact (case and trailing blanks count) on every backend,
whatever the column's collation says, because names are identifiers. The
``startswith`` filter is the exception: it is a SQL ``LIKE`` and behaves as
the database's ``LIKE`` does.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import and_, delete, exists, insert, select
from sqlalchemy.engine import Connection, Engine

from placement.db import tables
from placement.db.inserted import inserted_id
from placement.db.transaction import reader, run_in_transaction, writer
from placement.objects import exceptions, lookup, resource_provider

#: Names users may create (and the only ones they may delete) start with this.
CUSTOM_PREFIX = "CUSTOM_"

NOT_FOUND_MESSAGE = "No such trait(s): {names}."

_TRAITS = tables.traits
_RP_TRAITS = tables.resource_provider_traits

_GENERATION_CHANGED = (
    "Resource provider's generation already changed. Please update the generation and try again."
)


@dataclass(frozen=True)
class Trait:
    id: int
    name: str
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None

    @property
    def last_modified(self) -> datetime.datetime | None:
        return self.updated_at or self.created_at


@dataclass(frozen=True)
class ProviderTraits:
    """A provider's traits and its generation, read in one transaction."""

    generation: int
    traits: list[Trait]


_COLUMNS = (_TRAITS.c.id, _TRAITS.c.name, _TRAITS.c.created_at, _TRAITS.c.updated_at)


# --- lookups other areas reuse -------------------------------------------------


def trait_id(conn: Connection, name: str) -> int:
    """The id of the trait called ``name``; ``TraitNotFound`` ``No such trait(s): <name>.``

    (Filters resolve many names at once with
    :func:`placement.objects.conditions.trait_ids`.)
    """
    return _get(conn, name).id


def _by_names(conn: Connection, names: Iterable[str], message: str) -> list[Trait]:
    rows = lookup.rows_by_name(
        conn, _TRAITS, names, message=message, error=exceptions.TraitNotFound
    )
    return [Trait(**row._mapping) for row in rows.values()]


def _get(conn: Connection, name: str) -> Trait:
    return _by_names(conn, [name], NOT_FOUND_MESSAGE)[0]


# --- traits -------------------------------------------------------------------


def list_traits(
    engine: Engine,
    *,
    names: list[str] | None = None,
    prefix: str | None = None,
    associated: bool | None = None,
) -> list[Trait]:
    """Traits by name, filtered by all the filters given.

    ``names``: exactly these (unknown ones are simply absent); ``prefix``:
    ``LIKE 'prefix%'``; ``associated``: whether some provider has it.
    """
    query = select(*_COLUMNS).order_by(_TRAITS.c.name)
    if names is not None:
        query = query.where(_TRAITS.c.name.in_(names))
    if prefix is not None:
        query = query.where(_TRAITS.c.name.like(prefix + "%"))
    if associated is not None:
        used = exists().where(_RP_TRAITS.c.trait_id == _TRAITS.c.id)
        query = query.where(used if associated else ~used)
    with reader(engine) as conn:
        traits = [Trait(*row) for row in conn.execute(query)]
    if names is not None:
        traits = [trait for trait in traits if trait.name in names]
    return traits


def get(engine: Engine, name: str) -> Trait:
    """The trait called ``name``; ``TraitNotFound`` ``No such trait(s): <name>.``"""
    with reader(engine) as conn:
        return _get(conn, name)


def ensure(engine: Engine, name: str) -> tuple[bool, Trait]:
    """Create trait ``name`` unless it exists: ``(created, trait)``."""
    now = tables.utcnow()
    try:
        with writer(engine) as conn:
            new_id = inserted_id(conn.execute(insert(_TRAITS).values(name=name, created_at=now)))
        return True, Trait(new_id, name, now, None)
    except sqlalchemy.exc.IntegrityError:
        return False, get(engine, name)


def delete_custom(engine: Engine, name: str) -> None:
    """Delete custom trait ``name``; refused for standard or used ones."""
    with writer(engine) as conn:
        trait = _get(conn, name)
        if not name.startswith(CUSTOM_PREFIX):
            raise exceptions.StandardName(f"Cannot delete standard trait {name}.", name)
        in_use = conn.execute(select(exists().where(_RP_TRAITS.c.trait_id == trait.id))).scalar()
        if in_use:
            raise exceptions.InUse(f"The trait {name} is in use by a resource provider.")
        conn.execute(delete(_TRAITS).where(_TRAITS.c.id == trait.id))


# --- provider traits ------------------------------------------------------------


def provider_traits(engine: Engine, uuid: str) -> ProviderTraits:
    """The traits of provider ``uuid``; :class:`ProviderNotFound` if there is none."""
    with reader(engine) as conn:
        provider_id, generation = _provider(conn, uuid)
        return ProviderTraits(generation, _traits_of(conn, provider_id))


def set_provider_traits(
    engine: Engine, uuid: str, generation: int, names: list[str]
) -> ProviderTraits:
    """Replace the traits of provider ``uuid`` by ``names``.

    ``generation`` must be the provider's current one (:class:`StaleGeneration`
    otherwise); every name must be a trait (:class:`TraitNotFound` ``No such
    trait A, B``). The generation is bumped only when the set changes.
    """

    def replace(conn: Connection) -> ProviderTraits:
        provider_id, current = _provider(conn, uuid)
        if current != generation:
            raise exceptions.StaleGeneration(_GENERATION_CHANGED)
        wanted = _by_names(conn, names, "No such trait {names}")
        new_generation = _replace_traits(conn, provider_id, current, {t.id for t in wanted})
        return ProviderTraits(new_generation, sorted(wanted, key=lambda t: t.name))

    return run_in_transaction(engine, replace, write=True)


def clear_provider_traits(engine: Engine, uuid: str) -> None:
    """Remove every trait of provider ``uuid`` (generation bumped if it had any)."""

    def clear(conn: Connection) -> None:
        provider_id, current = _provider(conn, uuid)
        _replace_traits(conn, provider_id, current, set())

    run_in_transaction(engine, clear, write=True)


def _provider(conn: Connection, uuid: str) -> tuple[int, int]:
    """``(id, generation)`` of provider ``uuid``; :class:`ProviderNotFound` if absent."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    if provider is None:
        raise exceptions.ProviderNotFound(f"No resource provider with uuid {uuid} found", uuid)
    return provider.id, provider.generation


def _traits_of(conn: Connection, provider_id: int) -> list[Trait]:
    query = (
        select(*_COLUMNS)
        .join(_RP_TRAITS, _RP_TRAITS.c.trait_id == _TRAITS.c.id)
        .where(_RP_TRAITS.c.resource_provider_id == provider_id)
        .order_by(_TRAITS.c.name)
    )
    return [Trait(*row) for row in conn.execute(query)]


def _replace_traits(conn: Connection, provider_id: int, generation: int, wanted: set[int]) -> int:
    """Make ``wanted`` the provider's trait ids; return its generation after.

    When the set changes, the generation is bumped first, as a compare-and-
    swap: a concurrent writer either waits for our row lock and then finds
    the generation moved, or has moved it already; both mean :class:`ConcurrentUpdate`.
    """
    have = set(
        conn.execute(
            select(_RP_TRAITS.c.trait_id).where(_RP_TRAITS.c.resource_provider_id == provider_id)
        ).scalars()
    )
    if have == wanted:
        return generation
    new_generation = resource_provider.increment_generation(conn, provider_id, generation)
    if have - wanted:
        conn.execute(
            delete(_RP_TRAITS).where(
                and_(
                    _RP_TRAITS.c.resource_provider_id == provider_id,
                    _RP_TRAITS.c.trait_id.in_(have - wanted),
                )
            )
        )
    if wanted - have:
        now = tables.utcnow()
        conn.execute(
            insert(_RP_TRAITS),
            [
                {"resource_provider_id": provider_id, "trait_id": trait_id, "created_at": now}
                for trait_id in sorted(wanted - have)
            ],
        )
    return new_generation
