"""Tree facts about the providers that survived the group queries, in bulk.

* which tree roots each sharing provider serves (through a shared aggregate);
* who is whose parent, for ``same_subtree`` (an :class:`~placement.candidates.model.Ancestry`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from placement.candidates.model import AggregateIds, Ancestry, Window
from placement.candidates.query import in_window, window_bounds
from placement.db import tables
from placement.db.bulk import all_rows
from placement.objects.conditions import in_aggregates

_RP = tables.resource_providers
_RPA = tables.resource_provider_aggregates

#: Ids per ``IN (...)`` list: safe for every backend's parameter limit.
CHUNK = 500


def chunks(ids: Iterable[int], size: int = CHUNK) -> Iterator[list[int]]:
    """``ids`` sorted, in lists of at most ``size``."""
    ordered = iter(sorted(ids))
    while chunk := list(islice(ordered, size)):
        yield chunk


def sharing_anchors(
    conn: Connection,
    providers: Iterable[int],
    window: Window,
    forbidden: frozenset[int] = frozenset(),
) -> dict[int, set[int]]:
    """For each sharing provider, the roots in ``window`` it serves.

    A sharing provider serves every tree that has *any* provider (root or
    not) in one of its aggregates, including its own tree when it is in an
    aggregate at all. Roots in a ``forbidden`` aggregate are left out.
    """
    mine, theirs = _RPA.alias("mine"), _RPA.alias("theirs")
    served: dict[int, set[int]] = {}
    for chunk in chunks(providers):
        query = (
            select(mine.c.resource_provider_id, _RP.c.root_provider_id)
            .distinct()
            .select_from(
                mine.join(theirs, theirs.c.aggregate_id == mine.c.aggregate_id).join(
                    _RP, _RP.c.id == theirs.c.resource_provider_id
                )
            )
            .where(
                mine.c.resource_provider_id.in_(chunk),
                *in_window(_RP.c.root_provider_id, window),
                *in_aggregates(_RP.c.root_provider_id, AggregateIds(forbidden=forbidden)),
            )
        )
        for provider, root in conn.execute(query, window_bounds(window)):
            served.setdefault(provider, set()).add(root)
    return served


_COLUMNS = (_RP.c.id, _RP.c.parent_provider_id)
_PARENTS_IN_RANGE = select(*_COLUMNS).where(
    _RP.c.root_provider_id.between(bindparam("low"), bindparam("high"))
)
_PARENTS_OF_ROOTS = select(*_COLUMNS).where(
    _RP.c.root_provider_id.in_(bindparam("roots", expanding=True))
)


def ancestry(conn: Connection, window: Window | None, roots: Iterable[int]) -> Ancestry:
    """The parent links of the trees with roots in ``window`` (any root
    trait; its ``roots`` when it lists them) and ``roots``."""
    parents: dict[int, int | None] = {}
    roots = set(roots)
    if window is not None and window.roots is not None:
        roots.update(window.roots)
    elif window is not None:
        parents.update(all_rows(conn, _PARENTS_IN_RANGE, {"low": window.low, "high": window.high}))
    for chunk in chunks(roots):
        parents.update(all_rows(conn, _PARENTS_OF_ROOTS, {"roots": chunk}))
    return Ancestry(parents)
