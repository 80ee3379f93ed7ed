"""Traits, aggregates and capacity in SQL, said once for every reader.

Provider listing (``GET /resource_providers?required=…&member_of=…&resources=…``)
and the allocation-candidates engine ask the same questions of a provider;
both build their answers from here, on a provider id column:

* :func:`has_traits` and :func:`in_aggregates` take the query string's
  filters once their names are ids (``TraitFilter[int]``,
  ``AggregateFilter[int]``, from :func:`trait_ids` and :func:`aggregate_ids`). Each
  condition is a correlated ``EXISTS`` answered from the association table's
  (provider, …) index alone: a query that looks at a few providers (one
  window of trees) pays for those providers only, where an ``IN (SELECT …)``
  would be computed over every provider of the deployment each time. With
  ``counted=True`` each is a correlated count instead, which no database
  makes a join of (for the provider list, which reads every provider: see
  ``_linked``).
* :func:`capacity` is what an inventory can hold, in Python and in SQL alike;
  :func:`fits` adds usage (:func:`used`), min_unit, max_unit and step_size
  (:func:`fit_checks` names each of its conditions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import sqlalchemy
from sqlalchemy import bindparam, func, literal, select
from sqlalchemy.engine import Connection

from placement.db import tables
from placement.filters import AggregateFilter, TraitFilter
from placement.objects import exceptions, lookup

_RP = tables.resource_providers

_Number = TypeVar("_Number", float, sqlalchemy.ColumnElement)


def has_traits(
    provider_id: sqlalchemy.ColumnElement, traits: TraitFilter[int], *, counted: bool = False
) -> list:
    """SQL conditions on ``provider_id``: a trait of each required set, no
    forbidden one. ``counted``: see :func:`_linked`."""
    return _linked(
        tables.resource_provider_traits,
        "trait_id",
        provider_id,
        traits.required,
        traits.forbidden,
        counted=counted,
    )


def in_aggregates(
    provider_id: sqlalchemy.ColumnElement,
    aggregates: AggregateFilter[int],
    *,
    counted: bool = False,
) -> list:
    """SQL conditions on ``provider_id``: in one of each ``member_of`` set,
    in none of ``forbidden``. ``counted``: see :func:`_linked`."""
    return _linked(
        tables.resource_provider_aggregates,
        "aggregate_id",
        provider_id,
        aggregates.member_of,
        aggregates.forbidden,
        counted=counted,
    )


def has_trait_named(provider_id: sqlalchemy.ColumnElement, name: str) -> sqlalchemy.Exists:
    """``provider_id`` carries the trait called ``name``, looked up in the
    same statement (for a fixed name, where no lookup of ids comes first)."""
    link, traits = tables.resource_provider_traits, tables.traits
    return (
        select(link.c.resource_provider_id)
        .join(traits, traits.c.id == link.c.trait_id)
        .where(link.c.resource_provider_id == provider_id, traits.c.name == name)
        .exists()
    )


def _linked(
    link: sqlalchemy.Table,
    column: str,
    provider_id: sqlalchemy.ColumnElement,
    any_of: tuple[frozenset[int], ...],
    none_of: frozenset[int],
    *,
    counted: bool = False,
) -> list:
    """``provider_id`` has a ``link`` row whose ``column`` is in each of
    ``any_of``, and none whose ``column`` is in ``none_of``.

    ``EXISTS`` by default. ``counted`` writes each condition as a
    correlated count of those rows instead (``> 0``, ``= 0`` for
    ``none_of``), which no database turns into a join: PostgreSQL makes
    an ``EXISTS`` a (semi or anti) join and picks its method from its row
    estimates; next to other conditions it can only guess at (capacity,
    one row by its guess where 100k passed), it read the whole link table
    once per provider (issue 34). A count is one probe of the link's
    (provider, …) index per provider the statement reads, whatever the
    estimates, for statements that read every provider anyway.
    """

    def linked_in(ids: frozenset[int]) -> list:
        return [link.c.resource_provider_id == provider_id, link.c[column].in_(sorted(ids))]

    if counted:
        conditions: list = [_count(link, linked_in(ids)) > 0 for ids in any_of]
        if none_of:
            conditions.append(_count(link, linked_in(none_of)) == 0)
        return conditions
    conditions = [select(link.c[column]).where(*linked_in(ids)).exists() for ids in any_of]
    if none_of:
        conditions.append(~select(link.c[column]).where(*linked_in(none_of)).exists())
    return conditions


def _count(table: sqlalchemy.Table, where: list) -> sqlalchemy.ScalarSelect:
    """How many rows of ``table`` meet ``where``, as a scalar subquery."""
    return select(func.count()).select_from(table).where(*where).scalar_subquery()


def trait_ids(
    conn: Connection,
    wanted: TraitFilter[str],
    *,
    message: str,
    known: Mapping[str, int] | None = None,
) -> TraitFilter[int]:
    """``wanted`` in trait ids. An unknown name raises
    :class:`~placement.objects.exceptions.TraitNotFound` with ``message``
    (placeholders as in :func:`placement.objects.lookup.rows_by_name`);
    names are looked up in upstream's order: each required set's sorted,
    then the forbidden ones sorted. ``known``: ids read already; no query
    when it has every name."""
    required = [name for any_of in wanted.required for name in sorted(any_of)]
    names = required + sorted(wanted.forbidden)
    ids: Mapping[str, int]
    if known is not None and all(name in known for name in names):
        ids = known
    else:
        ids = lookup.ids_by_name(
            conn, tables.traits, names, message=message, error=exceptions.TraitNotFound
        )
    return TraitFilter(
        tuple(frozenset(ids[name] for name in any_of) for any_of in wanted.required),
        frozenset(ids[name] for name in wanted.forbidden),
    )


_AGG = tables.placement_aggregates
_AGGREGATES_BY_UUID = select(_AGG.c.uuid, _AGG.c.id).where(
    _AGG.c.uuid.in_(bindparam("uuids", expanding=True))
)


def aggregate_ids(
    conn: Connection, wanted: AggregateFilter[str], *, known: Mapping[str, int] | None = None
) -> AggregateFilter[int]:
    """Ids of the aggregates that exist; a ``member_of`` set of only unknown
    ones becomes empty (and can be met by nobody). ``known``: ids read
    already; no query when it has every uuid."""
    uuids = set().union(*wanted.member_of, wanted.forbidden)
    if not uuids:
        return AggregateFilter()
    ids: Mapping[str, int]
    if known is not None and uuids.issubset(known):
        ids = known
    else:
        ids = dict(conn.execute(_AGGREGATES_BY_UUID, {"uuids": sorted(uuids)}).all())
    return AggregateFilter(
        tuple(frozenset(ids[u] for u in any_of if u in ids) for any_of in wanted.member_of),
        frozenset(ids[u] for u in wanted.forbidden if u in ids),
    )


def anyone(conn: Connection, *conditions: sqlalchemy.ColumnElement) -> bool:
    """Whether any provider at all meets ``conditions`` on the providers table."""
    return conn.execute(select(_RP.c.id).where(*conditions).limit(1)).first() is not None


# --- capacity ------------------------------------------------------------------


def capacity(total: _Number, reserved: _Number, allocation_ratio: _Number) -> _Number:
    """``(total - reserved) * allocation_ratio``: the inventory's capacity,
    on values or on columns (then a SQL expression).

    The exact product, as the allocation check compares it; what reports or
    subtracts whole units truncates it with ``int()``, as upstream does.
    """
    return (total - reserved) * allocation_ratio


def used(
    provider_id: sqlalchemy.ColumnElement, class_id: sqlalchemy.ColumnElement | int
) -> sqlalchemy.ScalarSelect:
    """Sum of allocations of one class on one provider (0 when none)."""
    alloc = tables.allocations
    return (
        select(func.coalesce(func.sum(alloc.c.used), 0))
        .where(alloc.c.resource_provider_id == provider_id, alloc.c.resource_class_id == class_id)
        .scalar_subquery()
    )


def fit_checks(
    inv: sqlalchemy.FromClause, used: sqlalchemy.ColumnElement, amount: int
) -> dict[str, sqlalchemy.ColumnElement]:
    """The conditions of :func:`fits`, by the rule each states, in its order
    (the candidates' explanation reports the first one a provider fails).

    ``amount`` is sent as a 64-bit integer: compared with a 32-bit column it
    would be bound as one, and PostgreSQL refuses a larger value.
    """
    wanted = literal(amount, sqlalchemy.BigInteger)
    return {
        "capacity": used + wanted <= capacity(inv.c.total, inv.c.reserved, inv.c.allocation_ratio),
        "min_unit": inv.c.min_unit <= wanted,
        "max_unit": inv.c.max_unit >= wanted,
        "step_size": wanted % inv.c.step_size == 0,
    }


def fits(inv: sqlalchemy.FromClause, used: sqlalchemy.ColumnElement, amount: int) -> list:
    """``amount`` more fits the inventory: capacity, min/max unit, step size."""
    return list(fit_checks(inv, used, amount).values())
