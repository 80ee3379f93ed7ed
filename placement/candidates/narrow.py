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

Two statements, whatever the clues: first how many providers hold each
clue (counted in the link tables' indexes, never sent) and whether a
sharing provider holds it; then the roots of the trees that meet every
usable clue, computed by the database (a join of the holders with their
providers, by primary key) and sent a page at a time in root order, as
the windows take them. A clue of a quarter of the cloud then costs one
join inside the database, where sending its holders and asking for their
roots took two round trips of every id (47 ms of 25,000 holders on
PostgreSQL, 125 ms on MariaDB, whose driver decodes each row in Python).

Resource classes give no clue: reading a class's inventories is no index
scan (their rows are fetched one by one on MariaDB), and took longer than
the windows it would have spared for 2 pGPUs on every tenth host.

A clue held by more than a third of the providers (and more than
:data:`FEWEST_MOST`) narrows nothing: its trees are common, so the windows
find them soon, and joining its holders would cost more than that; such a
clue is then remembered for a while (:class:`Common`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

import sqlalchemy
from sqlalchemy import bindparam, func, intersect, literal, null, select, true, union_all
from sqlalchemy.engine import Connection

from placement.candidates.model import Plan, ResolvedGroup
from placement.db import bulk, tables
from placement.db.per_engine import PerEngine

_RP = tables.resource_providers
_RPT = tables.resource_provider_traits
_RPA = tables.resource_provider_aggregates

#: Holders counted for one clue at most, whatever the deployment's size.
FEWEST_MOST = 8192
#: Seconds a clue found common is taken as common without counting it.
COMMON_FOR = 60.0
#: Roots sent at a time when the windows stop at a limit: two of the
#: widest windows (``engine.WIDEST``).
PAGE = 8192
#: Holders of a clue whose roots PostgreSQL reads one by one by primary
#: key, at most; it joins more with a scan of the providers.
PROBED_MOST = 8192


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


class _Held(NamedTuple):
    """A usable clue, how many providers hold it, and their lowest and
    highest id (None: none holds it)."""

    clue: _Clue
    holders: int
    low: int | None
    high: int | None


class _Part(NamedTuple):
    """What the text of one clue's part of the roots statement depends on."""

    #: The link table's name.
    link: str
    #: Only a root that is itself linked counts.
    at_root: bool
    #: Each holder's root is read by primary key (see :func:`_roots_statement`).
    probed: bool


def roots(conn: Connection, plan: Plan, windowed: bool = True) -> Iterator[int] | None:
    """The roots, ascending, of the only trees that can anchor a candidate
    of ``plan``; None when no clue narrows them (every tree may).

    ``in_tree`` names its tree outright. Otherwise the clues are counted
    now, and their roots read as they are consumed: :data:`PAGE` at a
    time when ``windowed`` (the windows may stop early), else all at once.
    """
    trees = _in_trees(plan)
    if trees is not None:
        return iter(sorted(trees))
    usable = _usable(conn, plan, list(_clues(plan)))
    if not usable:
        return None
    return _pages(conn, plan, usable, PAGE if windowed else None)


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
    """Holders counted for one clue at most: a third of the providers
    (their ids' range), at least :data:`FEWEST_MOST`."""
    low, high = plan.shape.ids
    providers = 0 if low is None or high is None else high - low + 1
    return max(FEWEST_MOST, providers // 3)


def _usable(conn: Connection, plan: Plan, clues: list[_Clue]) -> tuple[_Held, ...]:
    """The ``clues`` that narrow: held by at most :func:`_most` providers,
    and, for a group's clue where something shares, by no sharing
    provider (which, in another tree, could meet it). One statement of
    counts; a clue found common lately is not counted again
    (:class:`Common`)."""
    common = _COMMON.of(conn.engine)
    counted = [clue for clue in clues if not common.knows(clue.key)]
    if not counted:
        return ()
    sharing = plan.shape.sharing_trait if plan.shape.sharing else None
    statement = _count_statement(
        tuple((clue.link.name, sharing is not None and not clue.at_root) for clue in counted)
    )
    most = _most(plan)
    params: dict[str, object] = {"most": most + 1, "sharing": sharing}
    params.update({f"ids_{n}": sorted(clue.ids) for n, clue in enumerate(counted)})
    held: dict[int, _Held] = {}
    shared: set[int] = set()
    for n, kind, count, low, high in conn.execute(statement, params):
        if kind == _HELD:
            held[n] = _Held(counted[n], count, low, high)
        elif count:
            shared.add(n)
    usable = []
    for n, found in sorted(held.items()):
        if found.holders > most:
            common.mark(found.clue.key)
        elif n not in shared:
            usable.append(found)
    return tuple(usable)


def _pages(
    conn: Connection, plan: Plan, clues: tuple[_Held, ...], page: int | None
) -> Iterator[int]:
    """The roots meeting every clue, ascending, read ``page`` at a time
    (all at once for None)."""
    probe = conn.dialect.name == "postgresql"
    statement = _roots_statement(
        tuple(
            _Part(held.clue.link.name, held.clue.at_root, probe and held.holders <= PROBED_MOST)
            for held in clues
        ),
        plan.shape.flat,
        page is not None,
    )
    params: dict[str, object] = {}
    for n, held in enumerate(clues):
        params.update(
            {f"ids_{n}": sorted(held.clue.ids), f"low_{n}": held.low, f"high_{n}": held.high}
        )
    after = 0
    while True:
        params.update(after=after, page=page)
        found = [row[0] for row in bulk.all_rows(conn, statement, params, order=itemgetter(0))]
        yield from found
        if page is None or len(found) < page:
            return
        after = found[-1]


class Common:
    """The clues found common (more holders than were counted) in the last
    :data:`COMMON_FOR` seconds, which are then not counted again: a trait
    every host has (one a flavor asks for) would otherwise cost a count
    that grows with the cloud on every request, to narrow nothing. A clue
    that became rare meanwhile only narrows again a little later.
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

#: The kinds of row of :func:`_count_statement`.
_HELD, _SHARED = range(2)


@lru_cache(maxsize=64)
def _count_statement(
    clues: tuple[tuple[str, bool], ...],
) -> sqlalchemy.CompoundSelect | sqlalchemy.Select:
    """``(clue number, kind, count, low, high)`` rows: for each clue (link
    table name, whether to ask about sharing providers), its holders up to
    ``:most`` with their lowest and highest id, and (kind ``_SHARED``)
    whether a provider with trait ``:sharing`` holds it. Ids bound as
    ``ids_<n>``."""
    parts = []
    for number, (name, ask_sharing) in enumerate(clues):
        link, column = _LINKS[name]
        holds = link.c[column].in_(bindparam(f"ids_{number}", expanding=True))
        held = (
            select(link.c.resource_provider_id.label("holder"))
            .where(holds)
            .limit(bindparam("most"))
            .subquery()
        )
        holder = held.c.holder
        parts.append(
            select(
                literal(number).label("clue"),
                literal(_HELD).label("kind"),
                func.count().label("count"),
                func.min(holder).label("low"),
                func.max(holder).label("high"),
            ).select_from(held)
        )
        if ask_sharing:
            sharer = _RPT.alias("sharer")
            holder = link.c.resource_provider_id
            by_a_sharer = (
                select(literal(1).label("one"))
                .select_from(link.join(sharer, sharer.c.resource_provider_id == holder))
                .where(holds, sharer.c.trait_id == bindparam("sharing"))
                .limit(1)
                .subquery()
            )
            parts.append(
                select(literal(number), literal(_SHARED), func.count(), null(), null()).select_from(
                    by_a_sharer
                )
            )
    return parts[0] if len(parts) == 1 else union_all(*parts)


@lru_cache(maxsize=64)
def _roots_statement(parts: tuple[_Part, ...], flat: bool, paged: bool) -> sqlalchemy.Select:
    """The distinct roots above ``:after`` of the trees meeting every clue,
    ascending, at most ``:page`` of them when ``paged``. Where every tree
    is one provider, holders are their own roots and no provider row is
    read.

    A ``probed`` part reads each holder's root as a ``LATERAL`` row by
    primary key (``LIMIT 1`` keeps PostgreSQL from flattening it into a
    join of its choosing): PostgreSQL hashes a thousand holders against a
    scan of every provider (33 ms at 100k nodes, against 4 ms probed),
    which pays only for many more holders (25,000: 21 ms, probed 44 ms).
    """
    selects = [_part_roots(number, part, flat) for number, part in enumerate(parts)]
    met = (selects[0].distinct() if len(selects) == 1 else intersect(*selects)).subquery()
    statement = select(met.c.root).order_by(met.c.root)
    return statement.limit(bindparam("page")) if paged else statement


def _part_roots(number: int, part: _Part, flat: bool) -> sqlalchemy.Select:
    """The roots above ``:after`` of the trees clue ``number`` holds (see
    :func:`_roots_statement`). A joined part reads only the providers
    between the clue's lowest and highest holder: the holders of an
    aggregate of hosts numbered together are a range of ids, which
    PostgreSQL then reads instead of every provider (25,000 holders among
    120,000 providers: 12 ms, against 22)."""
    link, column = _LINKS[part.link]
    holds = link.c[column].in_(bindparam(f"ids_{number}", expanding=True))
    holder = link.c.resource_provider_id
    after: sqlalchemy.BindParameter[int] = bindparam("after")
    if flat:
        return select(holder.label("root")).where(holds, holder > after)
    if part.probed:
        provider = _provider_of(holder)
        root = provider.c.root_provider_id
        chosen = select(root.label("root")).select_from(link.join(provider, true())).where(holds)
    else:
        root = _RP.c.root_provider_id
        spans = _RP.c.id.between(bindparam(f"low_{number}"), bindparam(f"high_{number}"))
        chosen = (
            select(root.label("root"))
            .select_from(link.join(_RP, _RP.c.id == holder))
            .where(holds, spans)
        )
    chosen = chosen.where(root > after)
    return chosen.where(root == holder) if part.at_root else chosen


def _provider_of(holder: sqlalchemy.ColumnElement[int]) -> sqlalchemy.FromClause:
    """The root of provider ``holder`` as a ``LATERAL`` row."""
    return select(_RP.c.root_provider_id).where(_RP.c.id == holder).limit(1).lateral("provider_of")


#: Each link table, by name, and its column of the ids a clue names.
_LINKS = {
    link.name: (link, column) for link, column in ((_RPT, "trait_id"), (_RPA, "aggregate_id"))
}
