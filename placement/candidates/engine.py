"""Run the candidate pipeline and shape the answer.

Anchors (tree roots) are visited in id order, a *window* of root ids at a
time: the group queries, tree facts and the search run per window, and the
windows grow (x4) until the answer is complete. So a request that only needs
a few candidates (``limit`` without randomization, or
``[placement] max_allocation_candidates``) reads only the first trees, and
memory holds one window's rows plus the candidates being returned.

Answers are deterministic for the same database state: anchors ascending,
each anchor's combinations in provider-id order. ``breadth-first`` takes
one candidate per anchor in turn (all anchors at once); ``depth-first``
exhausts an anchor before the next. ``randomize_allocation_candidates``
samples uniformly (reservoir) among everything generated.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from oslo_config import cfg
from sqlalchemy import exists, func, select
from sqlalchemy.engine import Connection, Engine

from placement import errors
from placement.candidates import output, query, resolve, summaries
from placement.candidates.combine import Candidate, Facts, Rules, Search, Slot, SlotSpec
from placement.candidates.request import CandidateRequest
from placement.candidates.resolve import ResolvedGroup, TraitIds
from placement.candidates.trees import Ancestry, sharing_anchors
from placement.db import tables
from placement.db.transaction import reader

#: Root ids in the first window; each next window is 4 times as wide.
FIRST_WINDOW = 64


@dataclass(frozen=True)
class Settings:
    """The ``[placement]`` options that shape the answer."""

    max_candidates: int = -1
    breadth_first: bool = False
    randomize: bool = False

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Settings:
        opts = conf.placement
        return cls(opts.max_allocation_candidates,
                   opts.allocation_candidates_generation_strategy == "breadth-first",
                   opts.randomize_allocation_candidates)


@dataclass
class _Plan:
    """A resolved request, ready to run."""

    groups: list[ResolvedGroup]
    specs: list[SlotSpec]
    rules: Rules
    root_traits: TraitIds
    sharing_trait: int
    shape: query.Shape

    @property
    def summed(self) -> frozenset[int]:
        """Classes several groups ask for: only their amounts can add up."""
        counts: dict[int, int] = {}
        for group in self.groups:
            for class_id, _ in group.amounts:
                counts[class_id] = counts.get(class_id, 0) + 1
        return frozenset(class_id for class_id, count in counts.items() if count > 1)


def find(engine: Engine, request: CandidateRequest, settings: Settings) -> bytes:
    """The ``GET /allocation_candidates`` body (JSON) for ``request``."""
    with reader(engine) as conn:
        plan = _plan(conn, request)
        if plan is None:
            return output.EMPTY
        windowed = not settings.breadth_first and (
            settings.max_candidates >= 0 or (request.limit and not settings.randomize))
        stream = _stream(conn, plan, windowed=windowed, breadth_first=settings.breadth_first)
        if settings.max_candidates >= 0:
            stream = islice(stream, settings.max_candidates)
        kept, used_by_tree = _select(stream, request, settings)
        if not kept:
            return output.EMPTY
        roots = set().union(*(candidate.roots for candidate in kept))
        mapped = {p for candidate in kept for _, providers in candidate.mappings
                  for p in providers}
        trees = summaries.load(conn, roots, mapped)
    if used_by_tree is None:
        shown = {p for p, provider in trees.providers.items() if provider.root in roots}
    else:
        shown = set().union(*(used_by_tree[root] for root in roots))
    names = {class_id: name for group, wanted in zip(plan.groups, request.groups, strict=True)
             for (class_id, _), name in zip(group.amounts, wanted.resources, strict=True)}
    return output.body(kept, trees, names, summaries.render(
        trees, shown, request.version, request.requested_classes), request.version)


# --- resolve -------------------------------------------------------------------

def _plan(conn: Connection, request: CandidateRequest) -> _Plan | None:
    """Resolve names in upstream's order; None when nothing can match.

    An unknown name in a group is a 400 only if every earlier group matches
    something on its own: upstream stops at the first group without matches.
    """
    root_traits = resolve.root_traits(conn, request.root_traits)
    if root_traits and not _some_root(conn, root_traits):
        return None
    sharing_trait = resolve.sharing_trait(conn)
    shape = query.shape(conn, sharing_trait)
    groups: list[ResolvedGroup] = []
    for wanted in request.groups:
        try:
            group = resolve.group(conn, wanted)
        except errors.BadRequest:
            if not all(_matches_alone(conn, g, root_traits, sharing_trait, shape)
                       for g in groups):
                return None
            raise
        if group.void:
            return None
        groups.append(group)
    rules = Rules(isolate=request.isolate, same_subtrees=request.same_subtrees,
                  one_provider_per_tree=not request.nested_aware,
                  trait_bits=_trait_bits(groups))
    return _Plan(groups, _specs(groups), rules, root_traits, sharing_trait, shape)


def _specs(groups: list[ResolvedGroup]) -> list[SlotSpec]:
    """Slots: the unsuffixed group's classes first, then one per suffixed group."""
    specs = [SlotSpec("", False, (amount,)) for group in groups if not group.granular
             for amount in group.amounts]
    return specs + [SlotSpec(group.suffix, True, group.amounts)
                    for group in groups if group.granular]


def _trait_bits(groups: list[ResolvedGroup]) -> int:
    for group in groups:
        if not group.granular:
            return (1 << len(group.traits.required)) - 1
    return 0


def _some_root(conn: Connection, traits: TraitIds) -> bool:
    rp = tables.resource_providers
    return bool(conn.execute(select(exists().where(
        rp.c.parent_provider_id.is_(None), *query.trait_conditions(rp.c.id, traits)))).scalar())


def _matches_alone(conn: Connection, group: ResolvedGroup, root_traits: TraitIds,
                   sharing_trait: int, shape: query.Shape) -> bool:
    """Whether ``group`` on its own has a candidate (upstream's per-group step)."""
    plan = _Plan([group], _specs([group]), Rules(trait_bits=_trait_bits([group])),
                 root_traits, sharing_trait, shape)
    return next(_stream(conn, plan, windowed=False, breadth_first=False), None) is not None


# --- generate ------------------------------------------------------------------

def _stream(conn: Connection, plan: _Plan, *, windowed: bool,
            breadth_first: bool) -> Iterator[Candidate]:
    """Every candidate, anchor by anchor, window by window."""
    search = Search(plan.specs, plan.rules)
    shared = [_sharing_rows(conn, group, plan) for group in plan.groups]
    seen: set[Candidate] = set()
    for window in _windows(conn, plan.root_traits, windowed):
        gathered = _gather(conn, plan, window, shared)
        if gathered is None:
            continue
        slots, facts = gathered
        anchors = search.anchors(slots)
        if not anchors:
            continue
        if plan.rules.same_subtrees:
            own_roots = {facts.roots[p] for slot in slots for p in slot.shared}
            facts.ancestry = Ancestry.load(conn, window, own_roots)
        per_anchor = [search.candidates(anchor, slots, facts, seen) for anchor in anchors]
        if breadth_first:
            yield from _round_robin(per_anchor)
        else:
            for candidates in per_anchor:
                yield from candidates


def _windows(conn: Connection, root_traits: TraitIds, windowed: bool) -> Iterator[query.Window]:
    rp = tables.resource_providers
    low, high = conn.execute(select(func.min(rp.c.id), func.max(rp.c.id))).one()
    if low is None:
        return
    if not windowed:
        yield query.Window(low, high, root_traits)
        return
    size = FIRST_WINDOW
    while low <= high:
        yield query.Window(low, low + size - 1, root_traits)
        low += size
        size *= 4


def _round_robin(iterators: list[Iterator[Candidate]]) -> Iterator[Candidate]:
    """One candidate from each anchor in turn, until all are exhausted."""
    active = iterators
    while active:
        still = []
        for candidates in active:
            candidate = next(candidates, None)
            if candidate is not None:
                yield candidate
                still.append(candidates)
        active = still


def _sharing_rows(conn: Connection, group: ResolvedGroup,
                  plan: _Plan) -> list[query.ProviderRow] | list[query.ClassRow]:
    """Sharing providers that can serve ``group`` (none for an unsuffixed ``in_tree``)."""
    if not plan.shape.sharing:
        return []
    if group.granular:
        return query.provider_rows(conn, group, sharing_trait=plan.sharing_trait,
                                   summed=plan.summed)
    if group.tree is not None:
        return []
    return query.class_rows(conn, group, sharing_trait=plan.sharing_trait, summed=plan.summed)


def _gather(conn: Connection, plan: _Plan, window: query.Window,
            shared: list[list]) -> tuple[list[Slot], Facts] | None:
    """The slots' options per anchor in ``window``; None if a slot has none."""
    slots = [Slot(spec) for spec in plan.specs]
    facts = Facts()
    for group, group_shared in zip(plan.groups, shared, strict=True):
        if group.granular:
            index = next(i for i, spec in enumerate(plan.specs) if spec.suffix == group.suffix)
            touched = [slots[index]]
            _add_provider_rows(conn, group, window, group_shared, slots[index], facts,
                               plan.summed)
        else:
            by_class = {spec.amounts[0][0]: slot
                        for spec, slot in zip(plan.specs, slots, strict=True)
                        if not spec.granular}
            touched = list(by_class.values())
            if plan.shape.flat:
                _add_flat_rows(conn, group, window, by_class, facts, plan.rules.trait_bits,
                               plan.summed)
            else:
                _add_class_rows(conn, group, window, group_shared, by_class, facts, plan.summed)
        if not all(slot.choices for slot in touched):
            return None
    return slots, facts


def _add_provider_rows(conn: Connection, group: ResolvedGroup, window: query.Window,
                       shared: list[query.ProviderRow], slot: Slot, facts: Facts,
                       summed: frozenset[int]) -> None:
    def add(row: query.ProviderRow, anchor: int) -> None:
        slot.choices.setdefault(anchor, []).append(row.provider)
        facts.roots[row.provider] = row.root
        for class_id, room in row.rooms:
            facts.rooms[row.provider, class_id] = room

    for row in query.provider_rows(conn, group, window=window, summed=summed):
        add(row, row.root)
    if shared:
        served = sharing_anchors(conn, [row.provider for row in shared], window)
        for row in shared:
            slot.shared.add(row.provider)
            facts.roots[row.provider] = row.root
            for anchor in served.get(row.provider, ()):
                if anchor != row.root:
                    add(row, anchor)
        for providers in slot.choices.values():
            providers.sort()


def _add_flat_rows(conn: Connection, group: ResolvedGroup, window: query.Window,
                   by_class: dict[int, Slot], facts: Facts, trait_bits: int,
                   summed: frozenset[int]) -> None:
    """The unsuffixed group when every tree is one provider and none shares:
    each provider must then serve all of it alone, which one query decides."""
    for row in query.provider_rows(conn, group, window=window, summed=summed):
        facts.roots[row.provider] = row.root
        facts.trait_bits[row.provider] = trait_bits
        for class_id, room in row.rooms:
            by_class[class_id].choices.setdefault(row.root, []).append(row.provider)
            facts.rooms[row.provider, class_id] = room


def _add_class_rows(conn: Connection, group: ResolvedGroup, window: query.Window,
                    shared: list[query.ClassRow], by_class: dict[int, Slot],
                    facts: Facts, summed: frozenset[int]) -> None:
    def add(row: query.ClassRow, anchor: int) -> None:
        by_class[row.resource_class].choices.setdefault(anchor, []).append(row.provider)
        facts.roots[row.provider] = row.root
        facts.rooms[row.provider, row.resource_class] = row.room
        facts.trait_bits[row.provider] = row.trait_bits

    for row in query.class_rows(conn, group, window=window, summed=summed):
        add(row, row.root)
    if shared:
        served = sharing_anchors(conn, {row.provider for row in shared}, window,
                                 group.aggregates.forbidden)
        for row in shared:
            by_class[row.resource_class].shared.add(row.provider)
            facts.roots[row.provider] = row.root
            for anchor in served.get(row.provider, ()):
                if anchor != row.root:
                    add(row, anchor)
        for slot in by_class.values():
            for providers in slot.choices.values():
                providers.sort()


# --- select --------------------------------------------------------------------

def _select(stream: Iterator[Candidate], request: CandidateRequest,
            settings: Settings) -> tuple[list[Candidate], dict[int, set[int]] | None]:
    """The candidates to return and, before 1.29, who allocated in each tree.

    Before 1.29 the summaries list only providers that appear in some
    candidate (even one cut by ``limit``) of a returned candidate's tree, so
    every candidate is looked at then.
    """
    used_by_tree: dict[int, set[int]] | None = None
    if not request.nested_aware:
        used_by_tree = {}
        stream = _recording(stream, used_by_tree)
    limit = request.limit
    if settings.randomize:
        kept = _sample(stream, limit) if limit else list(stream)
        random.shuffle(kept)
    else:
        kept = list(islice(stream, limit))
        if used_by_tree is not None:
            for _ in stream:
                pass
    return kept, used_by_tree


def _recording(stream: Iterator[Candidate],
               used_by_tree: dict[int, set[int]]) -> Iterator[Candidate]:
    for candidate in stream:
        for (provider, _, _), root in zip(candidate.allocations, candidate.roots, strict=True):
            used_by_tree.setdefault(root, set()).add(provider)
        yield candidate


def _sample(stream: Iterator[Candidate], size: int) -> list[Candidate]:
    """A uniform random sample of ``size`` (reservoir sampling)."""
    sample: list[Candidate] = []
    for seen, candidate in enumerate(stream):
        if seen < size:
            sample.append(candidate)
        else:
            slot = random.randint(0, seen)
            if slot < size:
                sample[slot] = candidate
    return sample
