"""Capacity at a glance: pages of provider trees with their usage, for the console.

The console's capacity page draws every provider tree with a bar per
resource class. Asking the Placement API provider by provider would cost a
few requests per provider (thousands for a large cloud), so
:func:`capacity_page` answers one page of trees with a fixed number of
set-based queries, whatever the size of the cloud: the matching roots
(filtered, counted, sorted and cut to the page), then the page's providers,
their inventories with what is used of them, their traits and aggregates,
and the cloud's totals per class.

Capacity is :func:`placement.objects.conditions.capacity`, in whole units as
upstream reports it (``int()`` of the exact product). The filters are the
ones provider listing uses (:mod:`.conditions`), on one provider at a time:
a tree is on a page when one of its providers meets every filter given, and
those providers are marked ``matched``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlalchemy
from sqlalchemy import Select, and_, case, func, literal, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.db import tables
from placement.filters import AggregateFilter, TraitFilter
from placement.objects import conditions, resource_class

_RP = tables.resource_providers
_INV = tables.inventories
_ALLOC = tables.allocations
_RC = tables.resource_classes

_TRAIT_MESSAGE = 'Invalid trait(s) in "required" parameter: No such trait(s): {names}.'
_CLASS_MESSAGE = (
    "Invalid resource class in resource_class parameter: No such resource class {names}."
)


@dataclass(frozen=True)
class CapacityQuery:
    """Which trees, in which order, which page.

    ``name`` is part of a provider's name (any case); ``traits`` and
    ``member_of`` are the ``required`` and ``member_of`` filters of provider
    listing; ``resource_class`` asks for inventory of that class (and makes
    fullness that class's alone).
    """

    name: str | None = None
    traits: TraitFilter[str] = field(default_factory=TraitFilter)
    member_of: AggregateFilter[str] = field(default_factory=AggregateFilter)
    resource_class: str | None = None
    fullest_first: bool = False
    limit: int = 50
    offset: int = 0


def capacity_page(engine: Engine, query: CapacityQuery) -> dict:
    """One page of trees matching ``query``, with the cloud's totals.

    Unknown traits and resource classes raise :class:`TraitNotFound` and
    :class:`ResourceClassNotFound`; unknown aggregates match nothing.
    """
    with db.reader(engine) as conn:
        class_id = (
            resource_class.resource_class_id(conn, query.resource_class, message=_CLASS_MESSAGE)
            if query.resource_class is not None
            else None
        )
        where = _provider_conditions(conn, query, class_id)
        matched = select(_RP.c.root_provider_id.label("root_id")).where(*where).distinct()
        matched_roots = matched.subquery()
        tree_count = conn.execute(select(func.count()).select_from(matched_roots)).scalar_one()
        fullness = dict(_page(conn, matched_roots, class_id, query))
        trees = _trees(conn, list(fullness), where) if fullness else []
        for tree in trees:
            tree["fullness"] = fullness[tree.pop("root_id")]
        return {
            "provider_count": conn.execute(select(func.count()).select_from(_RP)).scalar_one(),
            "tree_count": tree_count,
            "limit": query.limit,
            "offset": query.offset,
            "totals": _totals(conn),
            "trees": trees,
        }


def _provider_conditions(
    conn: Connection, query: CapacityQuery, class_id: int | None
) -> list[sqlalchemy.ColumnElement]:
    """SQL conditions on a provider row for each filter of ``query``."""
    where: list[sqlalchemy.ColumnElement] = []
    if query.name:
        where.append(func.lower(_RP.c.name).contains(query.name.lower(), autoescape=True))
    if query.traits:
        where += conditions.has_traits(
            _RP.c.id, conditions.trait_ids(conn, query.traits, message=_TRAIT_MESSAGE)
        )
    if query.member_of.member_of or query.member_of.forbidden:
        where += conditions.in_aggregates(_RP.c.id, conditions.aggregate_ids(conn, query.member_of))
    if class_id is not None:
        where.append(
            select(_INV.c.id)
            .where(_INV.c.resource_provider_id == _RP.c.id, _INV.c.resource_class_id == class_id)
            .exists()
        )
    return where


def _usage(*where: sqlalchemy.ColumnElement) -> sqlalchemy.Subquery:
    """``(provider, class, used)``: the sum of allocations, for the providers ``where`` says."""
    return (
        select(
            _ALLOC.c.resource_provider_id,
            _ALLOC.c.resource_class_id,
            func.sum(_ALLOC.c.used).label("used"),
        )
        .where(*where)
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
        .subquery()
    )


def _fullness(roots: Select | list[int], class_id: int | None) -> sqlalchemy.Subquery:
    """``(root id, fullness)`` of the trees rooted at ``roots``.

    A tree's fullness is its fullest inventory's used / capacity (of
    ``class_id`` only, if given); an inventory without capacity counts as
    full. A tree without inventory has no row (it is empty: 0).
    """
    in_trees = _RP.c.root_provider_id.in_(roots)
    used = _usage(_ALLOC.c.resource_provider_id.in_(select(_RP.c.id).where(in_trees)))
    cap = conditions.capacity(_INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio)
    ratio = case((cap > 0, func.coalesce(used.c.used, 0) / cap), else_=literal(1.0))
    inventories = _INV.join(_RP, _RP.c.id == _INV.c.resource_provider_id).outerjoin(
        used,
        and_(
            used.c.resource_provider_id == _INV.c.resource_provider_id,
            used.c.resource_class_id == _INV.c.resource_class_id,
        ),
    )
    per_tree = (
        select(_RP.c.root_provider_id.label("root_id"), func.max(ratio).label("fullness"))
        .select_from(inventories)
        .where(in_trees)
        .group_by(_RP.c.root_provider_id)
    )
    if class_id is not None:
        per_tree = per_tree.where(_INV.c.resource_class_id == class_id)
    return per_tree.subquery()


def _page(
    conn: Connection, matched: sqlalchemy.Subquery, class_id: int | None, query: CapacityQuery
) -> list[tuple[int, float]]:
    """``(root id, fullness)`` of the page's trees, in the asked order.

    By name, the page is cut first and only its trees' fullness computed;
    fullest first needs every matching tree's.
    """
    root = _RP.alias("root")
    trees = select(root.c.id).select_from(matched).join(root, root.c.id == matched.c.root_id)
    if query.fullest_first:
        fullest = _fullness(select(matched.c.root_id), class_id)
        full = func.coalesce(fullest.c.fullness, 0.0)
        rows = conn.execute(
            trees.add_columns(full)
            .outerjoin(fullest, fullest.c.root_id == root.c.id)
            .order_by(full.desc(), root.c.name, root.c.id)
            .limit(query.limit)
            .offset(query.offset)
        )
        return [(root_id, float(value)) for root_id, value in rows]
    ids = list(
        conn.execute(
            trees.order_by(root.c.name, root.c.id).limit(query.limit).offset(query.offset)
        ).scalars()
    )
    if not ids:
        return []
    fullest = _fullness(ids, class_id)
    found = dict(conn.execute(select(fullest.c.root_id, fullest.c.fullness)).all())
    return [(root_id, float(found.get(root_id, 0.0))) for root_id in ids]


def _trees(
    conn: Connection, root_ids: list[int], where: list[sqlalchemy.ColumnElement]
) -> list[dict]:
    """The trees rooted at ``root_ids`` (in that order), each provider with
    its resources, traits and aggregates, parents before children."""
    in_page = _RP.c.root_provider_id.in_(root_ids)
    page_ids = select(_RP.c.id).where(in_page)
    rows, providers = _providers(conn, in_page, where)
    _add_resources(conn, providers, page_ids)
    _add_links(conn, providers, page_ids)
    return [_tree(root_id, rows, providers) for root_id in root_ids]


def _providers(
    conn: Connection, in_page: sqlalchemy.ColumnElement, where: list[sqlalchemy.ColumnElement]
) -> tuple[Sequence[sqlalchemy.Row], dict[int, dict]]:
    """The page's provider rows, and each provider's entry (resources, traits
    and aggregates still empty), marked ``matched`` when it meets ``where``."""
    rows = conn.execute(
        select(_RP.c.id, _RP.c.uuid, _RP.c.name, _RP.c.generation, _RP.c.parent_provider_id)
        .add_columns(_RP.c.root_provider_id)
        .where(in_page)
    ).all()
    matched = (
        set(conn.execute(select(_RP.c.id).where(in_page, *where)).scalars())
        if where
        else {row.id for row in rows}
    )
    uuid_of = {row.id: row.uuid for row in rows}
    providers = {
        row.id: {
            "uuid": row.uuid,
            "name": row.name,
            "generation": row.generation,
            "parent_uuid": uuid_of.get(row.parent_provider_id),
            "matched": row.id in matched,
            "resources": {},
            "traits": [],
            "aggregates": [],
        }
        for row in rows
    }
    return rows, providers


def _add_resources(conn: Connection, providers: dict[int, dict], page_ids: Select) -> None:
    """Each provider's inventories, by class name, with what is used of them."""
    used = _usage(_ALLOC.c.resource_provider_id.in_(page_ids))
    for row in conn.execute(
        select(
            _INV.c.resource_provider_id,
            _RC.c.name,
            _INV.c.total,
            _INV.c.reserved,
            _INV.c.allocation_ratio,
            func.coalesce(used.c.used, 0).label("used"),
        )
        .select_from(_INV)
        .join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .outerjoin(
            used,
            and_(
                used.c.resource_provider_id == _INV.c.resource_provider_id,
                used.c.resource_class_id == _INV.c.resource_class_id,
            ),
        )
        .where(_INV.c.resource_provider_id.in_(page_ids))
        .order_by(_INV.c.resource_provider_id, _RC.c.name)
    ):
        providers[row.resource_provider_id]["resources"][row.name] = {
            "total": row.total,
            "reserved": row.reserved,
            "allocation_ratio": row.allocation_ratio,
            "capacity": int(conditions.capacity(row.total, row.reserved, row.allocation_ratio)),
            "used": int(row.used),
        }


def _add_links(conn: Connection, providers: dict[int, dict], page_ids: Select) -> None:
    """Each provider's trait names and aggregate uuids, in name order."""
    for provider_id, name in _linked_names(
        conn, tables.resource_provider_traits, "trait_id", tables.traits, "name", page_ids
    ):
        providers[provider_id]["traits"].append(name)
    for provider_id, agg_uuid in _linked_names(
        conn,
        tables.resource_provider_aggregates,
        "aggregate_id",
        tables.placement_aggregates,
        "uuid",
        page_ids,
    ):
        providers[provider_id]["aggregates"].append(agg_uuid)


def _linked_names(
    conn: Connection,
    link: sqlalchemy.Table,
    column: str,
    named: sqlalchemy.Table,
    label: str,
    provider_ids: Select,
) -> list[sqlalchemy.Row]:
    """``(provider id, name)`` of what ``link`` ties the providers to, by name."""
    return list(
        conn.execute(
            select(link.c.resource_provider_id, named.c[label])
            .join(named, named.c.id == link.c[column])
            .where(link.c.resource_provider_id.in_(provider_ids))
            .order_by(named.c[label])
        )
    )


def _tree(root_id: int, rows: Sequence[sqlalchemy.Row], providers: dict[int, dict]) -> dict:
    """One tree: its providers depth first, children by name, with their depth."""
    children: dict[int | None, list[sqlalchemy.Row]] = defaultdict(list)
    for row in rows:
        if row.root_provider_id == root_id and row.id != root_id:
            children[row.parent_provider_id].append(row)
    ordered: list[dict] = []
    stack: list[tuple[int, int]] = [(root_id, 0)]
    while stack:
        provider_id, depth = stack.pop()
        ordered.append({**providers[provider_id], "depth": depth})
        below = sorted(children[provider_id], key=lambda row: (row.name, row.id), reverse=True)
        stack.extend((row.id, depth + 1) for row in below)
    return {"root_id": root_id, "providers": ordered}


def _totals(conn: Connection) -> dict[str, dict[str, int]]:
    """Capacity and use per class across the cloud.

    Inventories are grouped by their (total, reserved, ratio) in SQL, so a
    fleet of alike hosts is a few rows; each group adds its count times its
    whole capacity, as each provider's bar shows it.
    """
    totals: dict[str, dict[str, int]] = {}
    for name, total, reserved, ratio, count in conn.execute(
        select(_RC.c.name, _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio, func.count())
        .join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .group_by(_RC.c.name, _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio)
    ):
        entry = totals.setdefault(name, {"capacity": 0, "used": 0})
        entry["capacity"] += count * int(conditions.capacity(total, reserved, ratio))
    for name, used in conn.execute(
        select(_RC.c.name, func.sum(_ALLOC.c.used))
        .join(_RC, _RC.c.id == _ALLOC.c.resource_class_id)
        .group_by(_RC.c.name)
    ):
        totals.setdefault(name, {"capacity": 0, "used": 0})["used"] = int(used)
    return dict(sorted(totals.items()))
