"""SQL conditions on a provider id column, from resolved trait and aggregate ids.

Every condition is a correlated ``EXISTS`` answered from the association
table's (provider, …) index alone: a query that looks at a few providers
(one window of trees) pays for those providers only, where an
``IN (SELECT …)`` would be computed over every provider of the deployment
each time.
"""

from __future__ import annotations

import sqlalchemy
from sqlalchemy import select

from placement.candidates.model import AggregateIds, TraitIds
from placement.db import tables


def in_aggregates(provider_id: sqlalchemy.ColumnElement, aggregates: AggregateIds) -> list:
    """SQL conditions on ``provider_id``: in one of each ``member_of`` set,
    in none of ``forbidden``."""
    return _linked(
        tables.resource_provider_aggregates,
        "aggregate_id",
        provider_id,
        aggregates.member_of,
        aggregates.forbidden,
    )


def has_traits(provider_id: sqlalchemy.ColumnElement, traits: TraitIds) -> list:
    """SQL conditions on ``provider_id``: a trait of each required set, no
    forbidden one."""
    return _linked(
        tables.resource_provider_traits, "trait_id", provider_id, traits.required, traits.forbidden
    )


def _linked(
    link: sqlalchemy.Table,
    column: str,
    provider_id: sqlalchemy.ColumnElement,
    any_of: tuple[frozenset[int], ...],
    none_of: frozenset[int],
) -> list:
    """``provider_id`` has a ``link`` row whose ``column`` is in each of
    ``any_of``, and none whose ``column`` is in ``none_of``."""

    def exists_in(ids: frozenset[int]) -> sqlalchemy.Exists:
        return (
            select(link.c[column])
            .where(link.c.resource_provider_id == provider_id, link.c[column].in_(sorted(ids)))
            .exists()
        )

    conditions: list = [exists_in(ids) for ids in any_of]
    if none_of:
        conditions.append(~exists_in(none_of))
    return conditions
