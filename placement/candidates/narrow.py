"""The trees that can anchor a candidate at all, when an index says they are few.

Why: the windows visit tree roots in id order and compute every provider's
room before a required trait or aggregate is weighed against the tree, so a
request for hardware that 1 % of the cloud has would visit the other 99 %
to find its answers. Some of a request's conditions name, through the
trait and aggregate indexes, every tree that can meet them; when a
condition's holders are few, the windows visit only their trees.

Each *clue* is a condition every candidate's anchor tree must meet:

* a ``root_required`` set: the root itself has one of its traits;
* a group's required trait set: a provider of the tree has one of them;
* a group's ``member_of`` set: a provider of the tree is in one of them;
* a group's ``in_tree``: the tree itself.

The second and third hold only when no sharing provider has such a trait
or aggregate (a sharing provider, of another tree, could meet them), and a
suffixed group's ``in_tree`` only when nothing shares; a clue that may not
hold is not used. A group without resources gives no ``in_tree`` clue (its
``in_tree`` is not applied, see
:func:`~placement.candidates.query.provider_rows`).
Every clue only leaves out trees that can match nothing, so the answer is
the same with or without them; the group queries still check everything.

Resource classes give no clue: reading a class's inventories is no index
scan (their rows are fetched one by one on MariaDB), and took longer than
the windows it would have spared for 2 pGPUs on every tenth host.

A clue held by more than a third of the providers (and more than
:data:`FEWEST_MOST`) narrows nothing: its trees are common, so the windows
find them soon, and reading its holders would cost more than that; such a
clue is then remembered for a while (:class:`Common`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

import sqlalchemy
from sqlalchemy import bindparam, literal, select, union_all
from sqlalchemy.engine import Connection

from placement.candidates.model import Plan, ResolvedGroup
from placement.candidates.trees import chunks
from placement.db import tables
from placement.db.ids import OneOf
from placement.db.per_engine import PerEngine

_RP = tables.resource_providers
_RPT = tables.resource_provider_traits
_RPA = tables.resource_provider_aggregates

#: Holders read for one clue at most, whatever the deployment's size.
FEWEST_MOST = 8192
#: Seconds a clue found common is taken as common without reading it.
COMMON_FOR = 60.0
#: Holders whose roots one statement reads.
ROOTS_PER_READ = 16384


class _Clue(NamedTuple):
    """Providers linked (``link``) to one of ``ids``; ``at_root``: only a
    root that is itself linked counts."""

    link: sqlalchemy.Table
    ids: frozenset[int]
    at_root: bool = False

    @property
    def key(self) -> tuple[str, frozenset[int]]:
        """What makes two clues count the same holders."""
        return self.link.name, self.ids


def roots(conn: Connection, plan: Plan) -> tuple[int, ...] | None:
    """The roots, ascending, of the only trees that can anchor a candidate
    of ``plan``; None when no clue narrows them (every tree may).

    At most two statements: every clue's holders (and the sharing
    providers) in one, then, unless every tree is one provider, the roots
    of the holders of the clues that narrow.
    """
    found = _in_trees(plan)
    clues = list(_clues(plan))
    sharers = [_Clue(_RPT, frozenset({plan.shape.sharing_trait}))] if plan.shape.sharing else []
    holders = _linked(conn, clues + sharers, _most(plan))
    sharing = holders.pop() if sharers else set()
    usable = [
        (clue, linked)
        for clue, linked in zip(clues, holders, strict=True)
        if linked is not None and _holds(clue, linked, sharing)
    ]
    root_of = _roots_of(conn, plan, set().union(*(linked for _, linked in usable)))
    for clue, linked in usable:
        met = {root_of[p] for p in linked if not clue.at_root or root_of[p] == p}
        found = met if found is None else found & met
    return None if found is None else tuple(sorted(found))


def _holds(clue: _Clue, linked: set[int], sharing: set[int] | None) -> bool:
    """Whether ``clue`` must be met in the anchor's tree: a root clue
    always; a group's unless a sharing provider meets it, or there are too
    many sharing providers (``None``) to tell."""
    return clue.at_root or (sharing is not None and sharing.isdisjoint(linked))


def _in_trees(plan: Plan) -> set[int] | None:
    """The one tree ``in_tree`` groups allow, if one does (an empty set when
    two name different trees)."""
    found: set[int] | None = None
    for group in plan.groups:
        if group.tree is None or not group.amounts:
            continue
        if group.granular and plan.shape.sharing:
            continue
        found = {group.tree} if found is None else found & {group.tree}
    return found


def _clues(plan: Plan) -> Iterator[_Clue]:
    """The root clues, then the groups' trait and aggregate clues."""
    for any_of in plan.root_traits.required:
        yield _Clue(_RPT, any_of, at_root=True)
    for group in plan.groups:
        yield from _group_clues(group)


def _group_clues(group: ResolvedGroup) -> Iterator[_Clue]:
    for any_of in group.traits.required:
        yield _Clue(_RPT, any_of)
    for any_of in group.aggregates.member_of:
        yield _Clue(_RPA, any_of)


def _most(plan: Plan) -> int:
    """Holders read for one clue at most: a third of the providers (their
    ids' range), at least :data:`FEWEST_MOST`."""
    low, high = plan.shape.ids
    providers = 0 if low is None or high is None else high - low + 1
    return max(FEWEST_MOST, providers // 3)


def _linked(conn: Connection, clues: list[_Clue], most: int) -> list[set[int] | None]:
    """For each clue, the providers linked to its ids (None: more than
    ``most``), read from the link tables' indexes alone, so learning that
    a clue is common costs little; a clue found common lately is not read
    again (:class:`Common`)."""
    common = _COMMON.of(conn.engine)
    found: list[set[int] | None] = [None] * len(clues)
    read = [n for n, clue in enumerate(clues) if not common.knows(clue.key)]
    if not read:
        return found
    statement = _linked_statement(tuple(clues[n].link.name for n in read))
    params: dict[str, object] = {"most": most + 1}
    params.update({f"ids_{part}": sorted(clues[n].ids) for part, n in enumerate(read)})
    linked: list[set[int]] = [set() for _ in read]
    for part, provider in conn.execute(statement, params):
        linked[part].add(provider)
    for n, providers in zip(read, linked, strict=True):
        if len(providers) > most:
            common.mark(clues[n].key)
        else:
            found[n] = providers
    return found


class Common:
    """The clues found common (more holders than were read) in the last
    :data:`COMMON_FOR` seconds, whose holders are then not read again: a
    trait every host has (one a flavor asks for) would otherwise cost a
    read that grows with the cloud on every request, to narrow nothing. A
    clue that became rare meanwhile only narrows again a little later.
    One per engine, as ``known.py``'s caches; emptied whole when full."""

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit
        self._since: dict[tuple[str, frozenset[int]], float] = {}

    def knows(self, key: tuple[str, frozenset[int]]) -> bool:
        since = self._since.get(key)
        return since is not None and time.monotonic() - since < COMMON_FOR

    def mark(self, key: tuple[str, frozenset[int]]) -> None:
        if len(self._since) >= self.limit:
            self._since.clear()
        self._since[key] = time.monotonic()


#: The clues found common on each engine's database in this process.
_COMMON = PerEngine(Common)


def _roots_of(conn: Connection, plan: Plan, providers: set[int]) -> dict[int, int]:
    """The root of each of ``providers``, by primary key: one index entry
    per provider whatever the database estimates (a join with the links
    could be planned as a scan of every provider for a thousand holders).
    Only the providers that are not roots come back (most holders are
    hosts, their own roots); where every tree is one provider, nothing
    is read."""
    found = {provider: provider for provider in providers}
    if plan.shape.flat:
        return found
    for chunk in chunks(providers, ROOTS_PER_READ):
        found.update(conn.execute(_ROOTS_OF, {"ids": chunk}).all())
    return found


@lru_cache(maxsize=64)
def _linked_statement(links: tuple[str, ...]) -> sqlalchemy.CompoundSelect | sqlalchemy.Select:
    """Each clue's linked providers, ``(clue number, provider)``, at most
    ``:most`` of each (the clues' ``links`` by table name; ids bound as
    ``ids_<n>``)."""
    parts = []
    for number, name in enumerate(links):
        link, column = _LINKS[name]
        limited = (
            select(link.c.resource_provider_id)
            .where(link.c[column].in_(bindparam(f"ids_{number}", expanding=True)))
            .limit(bindparam("most"))
            .subquery()
        )
        parts.append(select(literal(number).label("clue"), limited.c.resource_provider_id))
    return parts[0] if len(parts) == 1 else union_all(*parts)


#: Each link table, by name, and its column of the ids a clue names.
_LINKS = {
    link.name: (link, column) for link, column in ((_RPT, "trait_id"), (_RPA, "aggregate_id"))
}
_ROOTS_OF = select(_RP.c.id, _RP.c.root_provider_id).where(
    OneOf(_RP.c.id, "ids"), _RP.c.root_provider_id != _RP.c.id
)
