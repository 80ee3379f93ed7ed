"""SQL conditions on a provider id column, from resolved trait and aggregate ids.

Every condition is a correlated ``EXISTS`` answered from the association
table's (provider, …) index alone: a query that looks at a few providers
(one window of trees) pays for those providers only, where an
``IN (SELECT …)`` would be computed over every provider of the deployment
each time.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import select

from placement.db import tables


@dataclass(frozen=True)
class TraitIds:
    """Trait ids: each set of ``required`` needs one member; none of ``forbidden``."""

    required: tuple[frozenset[int], ...] = ()
    forbidden: frozenset[int] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.required or self.forbidden)


@dataclass(frozen=True)
class AggregateIds:
    """Aggregate ids: one of each ``member_of`` set is needed; none of ``forbidden``."""

    member_of: tuple[frozenset[int], ...] = ()
    forbidden: frozenset[int] = frozenset()


def in_aggregates(provider_id: sqlalchemy.ColumnElement, aggregates: AggregateIds) -> list:
    """SQL conditions on ``provider_id``: in one of each ``member_of`` set,
    in none of ``forbidden`` (correlated, so a few providers cost little)."""
    rpa = tables.resource_provider_aggregates

    def member(ids: frozenset[int]):
        return select(rpa.c.aggregate_id).where(rpa.c.resource_provider_id == provider_id,
                                                rpa.c.aggregate_id.in_(sorted(ids))).exists()

    conditions = [member(any_of) for any_of in aggregates.member_of]
    if aggregates.forbidden:
        conditions.append(~member(aggregates.forbidden))
    return conditions


def has_traits(provider_id: sqlalchemy.ColumnElement, traits: TraitIds) -> list:
    """SQL conditions on ``provider_id``: a trait of each required set, no
    forbidden one."""
    rpt = tables.resource_provider_traits

    def having(ids: frozenset[int]):
        return select(rpt.c.trait_id).where(rpt.c.resource_provider_id == provider_id,
                                            rpt.c.trait_id.in_(sorted(ids))).exists()

    conditions = [having(any_of) for any_of in traits.required]
    if traits.forbidden:
        conditions.append(~having(traits.forbidden))
    return conditions
