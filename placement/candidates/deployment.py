"""The deployment's shape, read once per request before any group's query.

Whether some provider shares, whether some provider has a parent, the
sharing trait's id and the range of provider ids decide which queries the
engine runs at all; the ids of the traits and aggregates the request names
ride along in the same statement, so a scheduler's usual query pays one
round trip for all of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import os_traits
import sqlalchemy
from sqlalchemy import bindparam, case, func, literal, null, select, union_all
from sqlalchemy.engine import Connection

from placement.candidates.model import Shape
from placement.db import tables

_RP = tables.resource_providers
_RPT = tables.resource_provider_traits

#: The kinds of row of :func:`shape`'s read.
_SHAPE_ROW, _TRAIT_ROW, _AGGREGATE_ROW = range(3)


def _shape_query(traits: bool, aggregates: bool) -> sqlalchemy.CompoundSelect | sqlalchemy.Select:
    trait_id = (
        select(tables.traits.c.id)
        .where(tables.traits.c.name == os_traits.MISC_SHARES_VIA_AGGREGATE)
        .scalar_subquery()
    )
    # Whether some provider shares or has a parent, as the least such id:
    # each is then one probe of an index that starts with that column. An
    # EXISTS could be planned as a scan that stops at the first match, and
    # reads every row where there is none (the sharing trait's id is not
    # known when the statement is planned).
    sharing = (
        select(func.min(_RPT.c.resource_provider_id))
        .where(_RPT.c.trait_id == trait_id)
        .scalar_subquery()
    )
    nested = select(func.min(_RP.c.parent_provider_id)).scalar_subquery()
    # Two subqueries: each is one index probe, where min and max together
    # would make some databases scan.
    low = select(func.min(_RP.c.id)).scalar_subquery()
    high = select(func.max(_RP.c.id)).scalar_subquery()
    shape_row = select(
        literal(_SHAPE_ROW).label("kind"),
        null().label("name"),
        trait_id.label("id"),
        case((sharing.is_not(None), 1), else_=0).label("sharing"),
        case((nested.is_not(None), 1), else_=0).label("nested"),
        low.label("low"),
        high.label("high"),
    )
    named = [
        select(literal(kind), table.c[column], table.c.id, null(), null(), null(), null()).where(
            table.c[column].in_(bindparam(parameter, expanding=True))
        )
        for kind, table, column, parameter, wanted in (
            (_TRAIT_ROW, tables.traits, "name", "traits", traits),
            (_AGGREGATE_ROW, tables.placement_aggregates, "uuid", "aggregates", aggregates),
        )
        if wanted
    ]
    return union_all(shape_row, *named) if named else shape_row


#: The statement of :func:`shape` for each (names traits, names aggregates).
_SHAPES = {
    (traits, aggregates): _shape_query(traits, aggregates)
    for traits in (False, True)
    for aggregates in (False, True)
}


class Names(NamedTuple):
    """Ids of the traits and aggregates a request names, read with its
    :class:`Shape` (a name missing here is looked up again where it is
    resolved, which then reports it as before)."""

    traits: dict[str, int]
    aggregates: dict[str, int]


def shape(
    conn: Connection, traits: Iterable[str] = (), aggregates: Iterable[str] = ()
) -> tuple[Shape, Names]:
    """Whether some provider shares, whether some provider has a parent, the
    sharing trait's id and the range of provider ids, plus the ids of the
    named ``traits`` and ``aggregates`` (uuids) that exist: one statement,
    because it runs for every request."""
    traits, aggregates = sorted(set(traits)), sorted(set(aggregates))
    statement = _SHAPES[bool(traits), bool(aggregates)]
    found = Names({}, {})
    by_kind = {_TRAIT_ROW: found.traits, _AGGREGATE_ROW: found.aggregates}
    deployment = None
    for row in conn.execute(statement, {"traits": traits, "aggregates": aggregates}):
        if row.kind == _SHAPE_ROW:
            deployment = Shape(bool(row.sharing), bool(row.nested), row.id, (row.low, row.high))
        else:
            by_kind[row.kind][row.name] = row.id
    assert deployment is not None
    return deployment, found
