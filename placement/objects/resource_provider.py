"""Resource providers: lookups, the generation, create, update, delete, list.

Other areas build on the small Connection-level functions at the top:
:func:`get_by_uuid` / :func:`get_by_uuids` load providers inside the caller's
transaction and :func:`increment_generation` is the one compare-and-swap every
writer uses to claim a provider (``UPDATE ... SET generation = g + 1 WHERE
id = :id AND generation = :g``; no row updated means someone else got there
first and the caller's whole transaction must roll back).

Trees: every provider has a root (itself for a root provider) and maybe a
parent. ``root_provider_id`` is stored on every row so a tree is one indexed
lookup; moving a subtree (microversion 1.37) therefore rewrites the root of
every provider below the moved one.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, Literal

import sqlalchemy
from sqlalchemy import Integer, bindparam, case, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement import db, filters, metrics
from placement.db import tables
from placement.db.inserted import inserted_id
from placement.objects import conditions, exceptions, resource_class

_RP = tables.resource_providers


@dataclass(frozen=True)
class Provider:
    id: int
    uuid: str
    name: str
    generation: int
    root_provider_id: int
    parent_provider_id: int | None
    root_provider_uuid: str
    parent_provider_uuid: str | None
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None

    @property
    def last_modified(self) -> datetime.datetime | None:
        return self.updated_at or self.created_at


def _provider_select() -> sqlalchemy.Select:
    """Providers with their root's and parent's uuids, read by primary key.

    The uuids are correlated scalar subqueries rather than joins: a join
    leaves the database to pick how to run it from its estimate of the
    providers that pass the filters, and PostgreSQL, having multiplied its
    guesses for several of them down to one row, ran the join as a nested
    loop reading the whole providers table once per provider that passed
    (issue 34: more than 90 s at 100k). A subquery has no such choice: each
    row it is asked for costs at most one probe of the primary key, none
    for a root (its own uuid) or a provider without a parent.
    ``root_provider_id IS NOT NULL`` keeps what the inner join to the root
    did (every provider written here has a root).
    """
    root = _RP.alias("root_rp")
    parent = _RP.alias("parent_rp")
    return select(
        _RP.c.id,
        _RP.c.uuid,
        _RP.c.name,
        _RP.c.generation,
        _RP.c.root_provider_id,
        _RP.c.parent_provider_id,
        case(
            (_RP.c.root_provider_id == _RP.c.id, _RP.c.uuid),
            else_=select(root.c.uuid).where(root.c.id == _RP.c.root_provider_id).scalar_subquery(),
        ).label("root_provider_uuid"),
        case(
            (
                _RP.c.parent_provider_id.is_not(None),
                select(parent.c.uuid)
                .where(parent.c.id == _RP.c.parent_provider_id)
                .scalar_subquery(),
            ),
        ).label("parent_provider_uuid"),
        _RP.c.created_at,
        _RP.c.updated_at,
    ).where(_RP.c.root_provider_id.is_not(None))


def _providers(conn: Connection, query: sqlalchemy.Select) -> list[Provider]:
    return [Provider(**row._mapping) for row in conn.execute(query)]


# --- building blocks for every area -------------------------------------------


def get_by_uuid(conn: Connection, uuid: str) -> Provider | None:
    """The provider with exactly ``uuid``, or None."""
    return get_by_uuids(conn, [uuid]).get(uuid)


def _written(conn: Connection, uuid: str) -> Provider:
    """The provider this transaction just created or updated (so it exists)."""
    provider = get_by_uuid(conn, uuid)
    if provider is None:
        raise RuntimeError(f"provider {uuid} vanished inside its own transaction")
    return provider


def get_by_uuids(conn: Connection, uuids: Iterable[str]) -> dict[str, Provider]:
    """The providers among ``uuids`` that exist, keyed by uuid.

    Matching is exact on every backend (MySQL's collation would let an
    upper-case uuid find the stored lower-case one).
    """
    wanted = set(uuids)
    if not wanted:
        return {}
    found = _providers(conn, _provider_select().where(_RP.c.uuid.in_(sorted(wanted))))
    return {p.uuid: p for p in found if p.uuid in wanted}


def get_by_ids(conn: Connection, ids: Iterable[int]) -> dict[int, Provider]:
    """The providers among internal ``ids`` that exist, keyed by id."""
    wanted = list(set(ids))
    if not wanted:
        return {}
    return {p.id: p for p in _providers(conn, _provider_select().where(_RP.c.id.in_(wanted)))}


def find(engine: Engine, uuid: str) -> Provider | None:
    """:func:`get_by_uuid` in a transaction of its own."""
    with db.reader(engine) as conn:
        return get_by_uuid(conn, uuid)


_INCREMENT_GENERATION = (
    update(_RP)
    .where(_RP.c.id == bindparam("provider"), _RP.c.generation == bindparam("expected"))
    .values(generation=bindparam("expected", type_=Integer) + 1)
)


def increment_generation(conn: Connection, provider_id: int, expected_generation: int) -> int:
    """Compare-and-swap the generation from ``expected_generation`` to +1.

    Returns the new generation. Raises :class:`ConcurrentUpdate` when the
    stored generation differs; the caller's transaction must then be rolled
    back (raising out of ``db.writer`` does that). Run it before the other
    writes of the transaction: the row lock it takes serializes concurrent
    writers of the same provider.
    """
    result = conn.execute(
        _INCREMENT_GENERATION, {"provider": provider_id, "expected": expected_generation}
    )
    if result.rowcount != 1:
        metrics.generation_conflict("resource_provider")
        raise exceptions.ConcurrentUpdate("provider")
    return expected_generation + 1


# --- create --------------------------------------------------------------------


def create_provider(
    engine: Engine, *, name: str, uuid: str, parent_uuid: str | None = None
) -> Provider:
    """Create a provider (generation 0) under ``parent_uuid`` or as a root.

    ``uuid`` must already be normalized (lowercase, dashed). Raises
    :class:`InvalidProvider` for an empty name or a bad parent and
    :class:`DuplicateProvider` when the name or the uuid is taken.
    """

    def fail(reason: str) -> exceptions.InvalidProvider:
        return exceptions.InvalidProvider(
            f'Unable to create resource provider "{name}", {uuid}: '
            f"Object action create failed because: {reason}",
            uuid,
        )

    if not name:
        raise fail("name is required")
    if parent_uuid == uuid:
        raise fail(
            "parent provider UUID cannot be same as UUID. Please set parent "
            "provider UUID to None if there is no parent."
        )

    def run(conn: Connection) -> Provider:
        parent = None
        if parent_uuid is not None:
            parent = get_by_uuid(conn, parent_uuid)
            if parent is None:
                raise fail("parent provider UUID does not exist.")
        _check_unique(conn, name, uuid)
        return _insert(conn, name, uuid, parent)

    try:
        return db.run_in_transaction(engine, run, write=True)
    except sqlalchemy.exc.IntegrityError:
        # A concurrent create took the name or uuid after our check.
        with db.reader(engine) as conn:
            _check_unique(conn, name, uuid)
        raise


def _insert(conn: Connection, name: str, uuid: str, parent: Provider | None) -> Provider:
    """Insert the provider under ``parent`` (a root is its own root: set once
    its id is known)."""
    provider_id = inserted_id(
        conn.execute(
            insert(_RP).values(
                uuid=uuid,
                name=name,
                generation=0,
                parent_provider_id=parent.id if parent else None,
                root_provider_id=parent.root_provider_id if parent else None,
            )
        )
    )
    if parent is None:
        conn.execute(
            update(_RP).where(_RP.c.id == provider_id).values(root_provider_id=provider_id)
        )
    return _written(conn, uuid)


def _check_unique(conn: Connection, name: str, uuid: str) -> None:
    """:class:`DuplicateProvider` naming the uuid if it is taken, else the name if that is.

    Upstream reports the one unique constraint the database tripped over
    first, which is the uuid's when both are taken.
    """
    if conn.execute(select(_RP.c.id).where(_RP.c.uuid == uuid)).first():
        raise _duplicate(f"uuid: {uuid}")
    if conn.execute(select(_RP.c.id).where(_RP.c.name == name)).first():
        raise _duplicate(f"name: {name}")


# --- update --------------------------------------------------------------------


class _Keep(enum.Enum):
    """The type of :data:`KEEP_PARENT`: a one-member enum, so checkers can narrow on it."""

    PARENT = "keep"


#: ``parent_uuid`` default of :func:`update_provider`: leave the parent as it is.
KEEP_PARENT: Final = _Keep.PARENT


def update_provider(
    engine: Engine,
    provider: Provider,
    *,
    name: str,
    parent_uuid: str | None | Literal[_Keep.PARENT] = KEEP_PARENT,
    allow_reparenting: bool = False,
) -> Provider:
    """Rename ``provider`` and maybe give it a new parent (or none).

    Before microversion 1.37 (``allow_reparenting`` False) a provider may only
    gain a parent it did not have. The generation does not change. Returns
    the provider as stored afterwards.
    """

    def fail(action: str, reason: str) -> exceptions.InvalidProvider:
        return exceptions.InvalidProvider(
            f"Unable to save resource provider {provider.uuid}: "
            f"Object action {action} failed because: {reason}",
            provider.uuid,
        )

    def run(conn: Connection) -> Provider:
        current = get_by_uuid(conn, provider.uuid)
        if current is None:
            raise exceptions.ProviderNotFound(
                f"No resource provider with uuid {provider.uuid} found", provider.uuid
            )
        values, new_root = _changes(conn, current, name, parent_uuid, allow_reparenting, fail)
        if values:
            conn.execute(update(_RP).where(_RP.c.id == current.id).values(**values))
        if new_root is not None and new_root != current.root_provider_id:
            subtree = _subtree_ids(conn, current)
            conn.execute(update(_RP).where(_RP.c.id.in_(subtree)).values(root_provider_id=new_root))
        return _written(conn, provider.uuid)

    try:
        return db.run_in_transaction(engine, run, write=True)
    except sqlalchemy.exc.IntegrityError:
        # The name was taken, or the new parent deleted, after our checks.
        with db.reader(engine) as conn:
            if conn.execute(
                select(_RP.c.id).where(_RP.c.name == name, _RP.c.uuid != provider.uuid)
            ).first():
                raise _duplicate(name) from None
        raise fail("update", "parent provider UUID does not exist.") from None


def _changes(
    conn: Connection,
    current: Provider,
    name: str,
    parent_uuid: str | None | Literal[_Keep.PARENT],
    allow_reparenting: bool,
    fail: Callable[[str, str], exceptions.InvalidProvider],
) -> tuple[dict[str, object], int | None]:
    """The columns of ``current`` to set, and its tree's new root id if it moves
    (checked as :func:`update_provider` says)."""
    values: dict[str, object] = {}
    new_root = None
    if parent_uuid is not KEEP_PARENT:
        new_root, parent_id = _new_position(conn, current, parent_uuid, allow_reparenting, fail)
        if parent_id != current.parent_provider_id:
            values["parent_provider_id"] = parent_id
    if name != current.name:
        if conn.execute(select(_RP.c.id).where(_RP.c.name == name, _RP.c.id != current.id)).first():
            raise _duplicate(name)
        values["name"] = name
    return values, new_root


def _duplicate(taken: str) -> exceptions.DuplicateProvider:
    return exceptions.DuplicateProvider(
        f"Conflicting resource provider {taken} already exists.", taken
    )


def _new_position(
    conn: Connection,
    current: Provider,
    parent_uuid: str | None,
    allow_reparenting: bool,
    fail: Callable[[str, str], exceptions.InvalidProvider],
) -> tuple[int, int | None]:
    """(new root id, new parent id) for moving ``current`` under ``parent_uuid``."""
    if parent_uuid is None:
        if current.parent_provider_id is not None and not allow_reparenting:
            raise fail("update", "un-parenting a provider is not currently allowed.")
        return current.id, None
    parent = get_by_uuid(conn, parent_uuid)
    if parent is None:
        # Upstream names the action "create" here too.
        raise fail("create", "parent provider UUID does not exist.")
    if (
        current.parent_provider_id is not None
        and current.parent_provider_id != parent.id
        and not allow_reparenting
    ):
        raise fail("update", "re-parenting a provider is not currently allowed.")
    if parent.id in _subtree_ids(conn, current):
        raise fail("update", "creating loop in the provider tree is not allowed.")
    return parent.root_provider_id, parent.id


def _subtree_ids(conn: Connection, top: Provider) -> set[int]:
    """``top`` and every provider below it."""
    rows = conn.execute(
        select(_RP.c.id, _RP.c.parent_provider_id).where(
            _RP.c.root_provider_id == top.root_provider_id
        )
    ).all()
    children: dict[int, list[int]] = {}
    for child, parent in rows:
        children.setdefault(parent, []).append(child)
    found, todo = set(), [top.id]
    while todo:
        current = todo.pop()
        found.add(current)
        todo.extend(children.get(current, []))
    return found


# --- delete --------------------------------------------------------------------


def delete_provider(engine: Engine, uuid: str) -> None:
    """Delete a leaf provider without allocations, with its inventories,
    trait and aggregate associations."""

    def run(conn: Connection) -> None:
        provider = _deletable(conn, uuid)
        for table in (
            tables.inventories,
            tables.resource_provider_aggregates,
            tables.resource_provider_traits,
        ):
            conn.execute(delete(table).where(table.c.resource_provider_id == provider.id))
        if provider.root_provider_id == provider.id:
            conn.execute(update(_RP).where(_RP.c.id == provider.id).values(root_provider_id=None))
        conn.execute(delete(_RP).where(_RP.c.id == provider.id))

    try:
        db.run_in_transaction(engine, run, write=True)
    except sqlalchemy.exc.IntegrityError:
        # A child was attached after our check.
        raise exceptions.ProviderHasChildren(uuid) from None


def _deletable(conn: Connection, uuid: str) -> Provider:
    """The provider ``uuid``, refused if it is missing, has children or holds allocations."""
    provider = get_by_uuid(conn, uuid)
    if provider is None:
        raise exceptions.ProviderNotFound(
            f"No resource provider with uuid {uuid} found for delete", uuid
        )
    if conn.execute(
        select(_RP.c.id).where(_RP.c.parent_provider_id == provider.id).limit(1)
    ).first():
        raise exceptions.ProviderHasChildren(uuid)
    alloc = tables.allocations
    if conn.execute(
        select(alloc.c.id).where(alloc.c.resource_provider_id == provider.id).limit(1)
    ).first():
        raise exceptions.ProviderInUse(uuid)
    return provider


# --- list ----------------------------------------------------------------------


@dataclass(frozen=True)
class ProviderFilters:
    """What ``GET /resource_providers`` may ask for; every part is ANDed."""

    name: str | None = None
    uuid: str | None = None
    in_tree: str | None = None
    member_of: filters.AggregateFilter[str] | None = None
    traits: filters.TraitFilter[str] | None = None
    resources: dict[str, int] | None = None


_TRAIT_MESSAGE = 'Invalid trait(s) in "required" parameter: No such trait(s): {name}.'


def list_providers(engine: Engine, wanted: ProviderFilters) -> list[Provider]:
    """Providers matching ``wanted``, each judged on its own (no tree spanning).

    Unknown traits and resource classes raise :class:`TraitNotFound` and
    :class:`ResourceClassNotFound` with upstream's texts;
    unknown aggregates or ``in_tree`` providers simply match nothing. Like
    upstream, filters are applied in a fixed order and the first one that no
    provider at all passes (``in_tree``, required traits, ``member_of``) ends
    the search with an empty list, before later filters are validated. The
    conditions are those of the candidates engine (:mod:`.conditions`).
    """
    with db.reader(engine) as conn:
        query = _provider_select().order_by(_RP.c.id)
        if wanted.name:
            query = query.where(_RP.c.name == wanted.name)
        if wanted.uuid:
            query = query.where(_RP.c.uuid == wanted.uuid)
        if wanted.in_tree is not None:
            tree = get_by_uuid(conn, wanted.in_tree)
            if tree is None:
                return []
            query = query.where(_RP.c.root_provider_id == tree.root_provider_id)
        for conditions_of in (_trait_conditions, _aggregate_conditions):
            found = conditions_of(conn, wanted)
            if found is None:
                return []
            query = query.where(*found)
        if wanted.resources:
            query = query.where(*_capacity_conditions(conn, wanted.resources))
        return _providers(conn, query)


def _trait_conditions(conn: Connection, wanted: ProviderFilters) -> list | None:
    """The conditions of ``wanted``'s traits; None when no provider at all
    has the required ones (the search ends there, as upstream's does).

    That first check is ``EXISTS`` (the database may start from the
    traits' index and stop at the first provider); the list's conditions
    are counts, like the capacity's (:func:`_capacity_conditions`).
    """
    if wanted.traits is None:
        return []
    required = conditions.trait_ids(
        conn, filters.TraitFilter(wanted.traits.required), message=_TRAIT_MESSAGE
    )
    if required.required and not conditions.anyone(
        conn, *conditions.has_traits(_RP.c.id, required)
    ):
        return None
    forbidden = conditions.trait_ids(
        conn, filters.TraitFilter(forbidden=wanted.traits.forbidden), message=_TRAIT_MESSAGE
    )
    return [
        *conditions.has_traits(_RP.c.id, required, counted=True),
        *conditions.has_traits(_RP.c.id, forbidden, counted=True),
    ]


def _aggregate_conditions(conn: Connection, wanted: ProviderFilters) -> list | None:
    """The conditions of ``wanted``'s ``member_of``; None when no provider at
    all is in the required aggregates. Checked and written as the traits'
    (:func:`_trait_conditions`)."""
    if wanted.member_of is None:
        return []
    aggregates = conditions.aggregate_ids(conn, wanted.member_of)
    required = filters.AggregateFilter(aggregates.member_of)
    if required.member_of and not conditions.anyone(
        conn, *conditions.in_aggregates(_RP.c.id, required)
    ):
        return None
    return [
        *conditions.in_aggregates(_RP.c.id, required, counted=True),
        *conditions.in_aggregates(
            _RP.c.id, filters.AggregateFilter(forbidden=aggregates.forbidden), counted=True
        ),
    ]


def _capacity_conditions(conn: Connection, amounts: dict[str, int]) -> list:
    """The provider has inventory of each class that ``amounts`` fits now
    (:func:`.conditions.fits`).

    One condition per class, each a correlated scalar subquery counting the
    provider's inventory of the class that fits (0 or 1: the (provider,
    class) pair is unique), answered from that unique index with usage
    summed from the allocations index. Not ``EXISTS``: PostgreSQL turns an
    ``EXISTS`` into a join whose order and method it picks by its row
    estimates, and it estimated the capacity test at one row where 100k
    passed, then read the whole providers table once per inventory
    (issue 34). A scalar subquery stays what it is written as, on every
    database: one index probe per provider the list reads.
    """
    class_ids = resource_class.resource_class_ids(
        conn,
        amounts,
        message="Invalid resource class in resources parameter: No such resource class {names}.",
    )
    inv = tables.inventories
    return [
        select(func.count())
        .select_from(inv)
        .where(
            inv.c.resource_provider_id == _RP.c.id,
            inv.c.resource_class_id == class_ids[rc],
            *conditions.fits(
                inv, conditions.used(inv.c.resource_provider_id, class_ids[rc]), amount
            ),
        )
        .scalar_subquery()
        == 1
        for rc, amount in amounts.items()
    ]
