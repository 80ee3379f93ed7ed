"""Per request group, the providers that can serve it, straight from SQL.

Every query filters, joins and sums usage in the database and returns one
row per surviving provider (suffixed groups) or per surviving provider and
resource class (the unsuffixed group, which a tree serves collectively).
Rows carry what the later steps need and nothing more: the provider's tree,
how much of each class it can still take, and (unsuffixed group) which of
the required trait sets it satisfies.

Two flavours of each query:

* *tree* rows: providers whose tree root lies in a window of root ids;
  their anchor is their own root;
* *sharing* rows: providers marked ``MISC_SHARES_VIA_AGGREGATE``, whatever
  their tree; ``trees.sharing_anchors`` tells which roots they serve.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

import sqlalchemy
from sqlalchemy import (
    Integer,
    and_,
    bindparam,
    case,
    func,
    or_,
    select,
    true,
)
from sqlalchemy.engine import Connection

from placement.candidates.model import (
    UNCHECKED,
    AggregateIds,
    ClassRow,
    ProviderRow,
    ResolvedGroup,
    Room,
    TraitIds,
    Window,
)
from placement.db import tables
from placement.db.bulk import all_rows
from placement.db.ids import OneOf
from placement.objects.conditions import capacity, fits, has_traits, in_aggregates, used

_RP = tables.resource_providers
_INV = tables.inventories
_ALLOC = tables.allocations
_RPT = tables.resource_provider_traits


#: The bounds of a window, bound at execution (see :func:`window_bounds`), so
#: one statement serves every window.
_LOW = bindparam("window_low", type_=Integer)
_HIGH = bindparam("window_high", type_=Integer)


def in_window(root_id: sqlalchemy.ColumnElement, window: Window) -> list:
    """Conditions on a root id column; execute with :func:`window_bounds`."""
    where: sqlalchemy.ColumnElement[bool]
    if window.roots is None:
        where = root_id.between(_LOW, _HIGH)
    else:
        where = OneOf(root_id, "window_roots")
    return [where, *has_traits(root_id, window.root_traits)]


def window_bounds(window: Window) -> dict[str, Any]:
    """The parameters of :func:`in_window`."""
    if window.roots is not None:
        return {"window_roots": list(window.roots)}
    return {"window_low": window.low, "window_high": window.high}


# --- building blocks -----------------------------------------------------------


def _class_of(inv: sqlalchemy.FromClause, window: Window | None) -> sqlalchemy.ColumnElement:
    """``inv.resource_class_id``, in a form no index can serve for a part of
    the deployment.

    Without table statistics SQLite prefers driving a join by an equality on
    the class index over a range of tree roots, and then reads every
    inventory of the class in the deployment for a window of a few trees.
    The (provider, class) unique index still serves the join on every
    database, so this only removes that choice; over the whole deployment
    the class index is a good way in and stays usable.
    """
    if window is None or window.whole:
        return inv.c.resource_class_id
    return inv.c.resource_class_id + 0


def in_written_order(query: sqlalchemy.Select) -> sqlalchemy.Select:
    """Have MySQL/MariaDB join in the order written (``STRAIGHT_JOIN``):
    from the providers, which every query here filters first.

    Left to itself, with statistics that lag behind the data (right after a
    bulk load, before InnoDB samples the tables again), MariaDB may drive a
    join from ``inventories`` or ``traits`` and read those of the whole
    deployment for a window of 64 trees. Like :func:`_class_of` for SQLite.
    """
    return query.prefix_with("STRAIGHT_JOIN", dialect="mysql").prefix_with(
        "STRAIGHT_JOIN", dialect="mariadb"
    )


def _providers_first_in_window(
    query: sqlalchemy.Select, window: Window | None
) -> sqlalchemy.Select:
    """:func:`in_written_order` for a window of trees; over the whole
    deployment the database's own choice (e.g. by class) is good."""
    return query if window is None or window.whole else in_written_order(query)


def _room(total: int, reserved: int, ratio: float, taken: int, max_unit: int) -> Room:
    return Room(int(capacity(total, reserved, ratio)) - int(taken), max_unit)


def _sharing(sharing_trait: int) -> list:
    return has_traits(_RP.c.id, TraitIds((frozenset({sharing_trait}),)))


#: The ``ORDER BY`` of provider rows (id, root, …) and class rows (id,
#: root, class, …) as sort keys, for reads in bulk.
_BY_ROOT_AND_PROVIDER = itemgetter(1, 0)
_BY_ROOT_PROVIDER_AND_CLASS = itemgetter(1, 0, 2)


# --- suffixed groups: one provider serves the whole group ------------------------


def provider_rows(
    conn: Connection,
    group: ResolvedGroup,
    *,
    window: Window | None = None,
    sharing_trait: int | None = None,
    summed: frozenset[int] = frozenset(),
) -> list[ProviderRow]:
    """Providers that satisfy the whole suffixed ``group`` on their own.

    Give ``window`` for the providers of those trees, or ``sharing_trait``
    for the sharing providers of any tree. A group without resources
    matches only through its ``required`` or ``member_of`` (as upstream's
    does); its ``in_tree`` is not applied. Rooms are read only for the
    classes in ``summed`` (those several groups ask for).
    """
    if not (group.amounts or group.traits.required or group.aggregates.member_of):
        return []
    counted = (
        conn.dialect.name == "postgresql"
        and len(group.amounts) > 1
        and not summed.intersection(class_id for class_id, _ in group.amounts)
    )
    lateral = conn.dialect.name == "postgresql" and window is not None and not window.whole
    query = _provider_query(group, window and window.form, sharing_trait, summed, counted, lateral)
    params = window_bounds(window) if window else {}
    class_ids = [class_id for class_id, _ in group.amounts]
    if not summed.intersection(class_ids):
        # Only integers: cheap to read in bulk (see ``db.bulk``).
        found = all_rows(conn, query, params, order=_BY_ROOT_AND_PROVIDER)
        rooms = tuple((class_id, UNCHECKED) for class_id in class_ids)
        return [ProviderRow(row[0], row[1], rooms) for row in found]
    rows = []
    for row in conn.execute(query, params).all():
        values = iter(row[2:])
        rows.append(
            ProviderRow(
                row[0],
                row[1],
                tuple(
                    (
                        class_id,
                        _room(*(next(values) for _ in range(5)))
                        if class_id in summed
                        else UNCHECKED,
                    )
                    for class_id in class_ids
                ),
            )
        )
    return rows


@lru_cache(maxsize=256)
def _provider_query(
    group: ResolvedGroup,
    window: Window | None,
    sharing_trait: int | None,
    summed: frozenset[int],
    counted: bool = False,
    lateral: bool = False,
) -> sqlalchemy.Select:
    """The statement of :func:`provider_rows`, built once per request shape
    (building costs as much as running it over a thousand providers).

    Each class's inventory is joined (its room is read for ``summed``
    classes) or, ``counted``, checked by one subquery counting the
    provider's inventories that fit: PostgreSQL, once it has statistics,
    spends milliseconds planning a join of an inventory per class and then
    drives it from the inventories of the whole deployment; the count keeps
    it on the window's providers, a third of the cost. A group of one class
    keeps its join: driven from that class's inventories, it costs half the
    count over every provider of the window. MariaDB and SQLite run the
    joins faster.

    ``lateral`` (PostgreSQL, a window of trees): each class's inventory is a
    ``LATERAL`` row of the provider's (see :func:`_inventory_of`), so the
    window's providers drive the read: as a plain join, PostgreSQL drove a
    window of 4,096 trees from every inventory of the class in the cloud
    (the 20,000 pGPUs of 100k hosts, each window).
    """
    columns: list = [_RP.c.id, _RP.c.root_provider_id]
    source: sqlalchemy.FromClause = _RP
    conditions = [*has_traits(_RP.c.id, group.traits), *in_aggregates(_RP.c.id, group.aggregates)]
    if counted:
        conditions += _all_fit(group.amounts)
    else:
        source = _with_inventories(group, window, summed, lateral, columns, conditions)
    if group.amounts and group.tree is not None:
        conditions.append(_RP.c.root_provider_id == group.tree)
    if window is not None:
        conditions += in_window(_RP.c.root_provider_id, window)
    if sharing_trait is not None:
        conditions += _sharing(sharing_trait)
    return _providers_first_in_window(
        select(*columns)
        .select_from(source)
        .where(*conditions)
        .order_by(_RP.c.root_provider_id, _RP.c.id),
        window,
    )


def _with_inventories(
    group: ResolvedGroup,
    window: Window | None,
    summed: frozenset[int],
    lateral: bool,
    columns: list,
    conditions: list,
) -> sqlalchemy.FromClause:
    """The providers joined with their inventory of each class of
    ``group``; adds each class's fit to ``conditions`` and, for ``summed``
    classes, its room to ``columns``."""
    source: sqlalchemy.FromClause = _RP
    for index, (class_id, amount) in enumerate(group.amounts):
        taken = used(_RP.c.id, class_id)
        inv: sqlalchemy.FromClause
        if lateral:
            inv = _inventory_of(class_id, f"inv{index}")
            source = source.join(inv, true())
        else:
            inv = _INV.alias(f"inv{index}")
            source = source.join(
                inv,
                and_(inv.c.resource_provider_id == _RP.c.id, _class_of(inv, window) == class_id),
            )
        if class_id in summed:
            columns += [inv.c.total, inv.c.reserved, inv.c.allocation_ratio, taken, inv.c.max_unit]
        conditions += fits(inv, taken, amount)
    return source


def _inventory_of(class_id: int, name: str) -> sqlalchemy.FromClause:
    """The provider's inventory of ``class_id`` as a ``LATERAL`` row: read
    per provider through the (provider, class) unique index. ``LIMIT 1``
    (the pair is unique) keeps PostgreSQL from flattening it into a join
    whose order it would choose again."""
    inv = _INV.alias(f"{name}_of")
    return (
        select(inv)
        .where(inv.c.resource_provider_id == _RP.c.id, inv.c.resource_class_id == class_id)
        .limit(1)
        .lateral(name)
    )


def _all_fit(amounts: tuple[tuple[int, int], ...]) -> list:
    """The provider has an inventory of each class that ``amounts`` fit."""
    if not amounts:
        return []
    inv = _INV.alias("inv")
    taken = used(inv.c.resource_provider_id, inv.c.resource_class_id)
    fitting = (
        select(func.count())
        .select_from(inv)
        .where(
            inv.c.resource_provider_id == _RP.c.id,
            inv.c.resource_class_id.in_([class_id for class_id, _ in amounts]),
            or_(
                *(
                    and_(inv.c.resource_class_id == class_id, *fits(inv, taken, amount))
                    for class_id, amount in amounts
                )
            ),
        )
        .scalar_subquery()
    )
    return [fitting == len(amounts)]


# --- the unsuffixed group: a tree serves it collectively -------------------------


def tree_member_of(positive: AggregateIds) -> list:
    """The unsuffixed group's ``member_of`` on a tree row: the provider, or
    its root (an aggregate on the root spans the tree), is in one aggregate
    of each set."""
    if not positive.member_of:
        return []
    return [
        or_(
            and_(*in_aggregates(_RP.c.id, positive)),
            and_(*in_aggregates(_RP.c.root_provider_id, positive)),
        )
    ]


def tree_not_in(negative: AggregateIds) -> list:
    """The unsuffixed group's forbidden aggregates on a tree row: neither
    the root nor the provider is in one."""
    return [
        *in_aggregates(_RP.c.root_provider_id, negative),
        *in_aggregates(_RP.c.id, negative),
    ]


def tree_holds(required: tuple[frozenset[int], ...]) -> list:
    """A tree row's tree has, for each set of ``required``, a provider with
    one of its traits: where nothing shares, a tree that has none cannot
    meet the unsuffixed group's traits, so its rooms need not be read."""
    member = _RP.alias("member")
    return [
        select(_RPT.c.trait_id)
        .select_from(member.join(_RPT, _RPT.c.resource_provider_id == member.c.id))
        .where(
            member.c.root_provider_id == _RP.c.root_provider_id,
            _RPT.c.trait_id.in_(sorted(any_of)),
        )
        .exists()
        for any_of in required
    ]


def _tree_row_conditions(group: ResolvedGroup, window: Window, unshared: bool) -> list:
    """What a tree row of the unsuffixed group meets besides the room of its
    class: the window, ``in_tree``, the aggregates and (``unshared``) the
    required traits, on its tree."""
    conditions = in_window(_RP.c.root_provider_id, window)
    if group.tree is not None:
        conditions.append(_RP.c.root_provider_id == group.tree)
    conditions += tree_member_of(AggregateIds(group.aggregates.member_of))
    conditions += tree_not_in(AggregateIds(forbidden=group.aggregates.forbidden))
    if unshared:
        conditions += tree_holds(group.traits.required)
    return conditions


def class_rows(
    conn: Connection,
    group: ResolvedGroup,
    *,
    window: Window | None = None,
    sharing_trait: int | None = None,
    summed: frozenset[int] = frozenset(),
    unshared: bool = False,
) -> list[ClassRow]:
    """(provider, class) pairs that can serve one class of the unsuffixed group.

    Tree rows (``window``): aggregates count when the provider *or its root*
    is in them (an aggregate on the root spans the tree); a forbidden
    aggregate on either excludes it. Sharing rows (``sharing_trait``): the
    provider itself must be in the aggregates. Forbidden traits exclude a
    provider; required traits are only reported (``trait_bits``) because a
    tree satisfies them collectively, and (tree rows, ``unshared``: no
    provider shares) a tree without them is left out. Rooms are read only
    for the classes in ``summed``.
    """
    rooms = summed.intersection(class_id for class_id, _ in group.amounts)
    query = _class_query(group, window and window.form, sharing_trait, bool(rooms), unshared)
    params = window_bounds(window) if window else {}
    found: Sequence[Any]
    if rooms:  # the rooms' allocation ratios are floats
        found = conn.execute(query, params).all()
    else:  # only integers: cheap to read in bulk (see ``db.bulk``)
        found = all_rows(conn, query, params, order=_BY_ROOT_PROVIDER_AND_CLASS)
    first_bit = 8 if rooms else 3
    return [
        ClassRow(
            row[0],
            row[1],
            row[2],
            _room(*row[3:8]) if row[2] in rooms else UNCHECKED,
            sum(row[first_bit:]),
        )
        for row in found
    ]


@lru_cache(maxsize=256)
def _class_query(
    group: ResolvedGroup,
    window: Window | None,
    sharing_trait: int | None,
    with_rooms: bool,
    unshared: bool = False,
) -> sqlalchemy.Select:
    """The statement of :func:`class_rows`, built once per request shape."""
    inv = _INV
    taken = used(inv.c.resource_provider_id, inv.c.resource_class_id)
    any_class_fits = or_(
        *(
            and_(_class_of(inv, window) == class_id, *fits(inv, taken, amount))
            for class_id, amount in group.amounts
        )
    )
    bits = [
        case((has_traits(_RP.c.id, TraitIds((any_of,)))[0], 1 << index), else_=0)
        for index, any_of in enumerate(group.traits.required)
    ]
    conditions = [any_class_fits, *has_traits(_RP.c.id, TraitIds(forbidden=group.traits.forbidden))]
    if window is not None:
        conditions += _tree_row_conditions(group, window, unshared)
    else:
        if sharing_trait is not None:
            positive = AggregateIds(group.aggregates.member_of)
            conditions += [*_sharing(sharing_trait), *in_aggregates(_RP.c.id, positive)]
        negative = AggregateIds(forbidden=group.aggregates.forbidden)
        conditions += in_aggregates(_RP.c.id, negative)
    room_columns = (
        [inv.c.total, inv.c.reserved, inv.c.allocation_ratio, taken, inv.c.max_unit]
        if with_rooms
        else []
    )
    return _providers_first_in_window(
        select(_RP.c.id, _RP.c.root_provider_id, inv.c.resource_class_id, *room_columns, *bits)
        .select_from(_RP.join(inv, inv.c.resource_provider_id == _RP.c.id))
        .where(*conditions)
        .order_by(_RP.c.root_provider_id, _RP.c.id, inv.c.resource_class_id),
        window,
    )
