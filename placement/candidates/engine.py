"""Run the candidate pipeline and shape the answer.

The steps, in the order :func:`find` runs them: :func:`resolve_plan` resolves the
names into one frozen :class:`~placement.candidates.model.Plan` (with the
error-order probe, which keeps upstream's choice between an empty answer and
a 400), or says why nothing can match (a :class:`~placement.candidates.model.Stop`);
``_stream`` gathers each window's options (``slots.gather``) and
combines them (``combine.Search``); ``_select`` applies ``limit`` and the
sampling; ``summaries`` and ``output`` write the answer.

Anchors (tree roots) are visited in id order, a *window* of root ids at a
time: the group queries, tree facts and the search run per window, and the
windows grow (x4, up to :data:`WIDEST`, or to about what a limit still
needs, see :class:`Sizes`) until the answer is complete; when
``narrow`` names the only trees that can match, the windows list those. So
a request that only needs
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

import gc
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice, repeat

from oslo_config import cfg
from sqlalchemy.engine import Connection, Engine

from placement import metrics
from placement.candidates import (
    deployment,
    known,
    narrow,
    output,
    query,
    resolve,
    slots,
    summaries,
)
from placement.candidates.combine import Search
from placement.candidates.model import (
    STOP_EARLIER,
    STOP_ROOT_REQUIRED,
    STOP_VOID,
    Candidate,
    Plan,
    ResolvedGroup,
    Shape,
    Stop,
    TraitIds,
    Trees,
    Window,
)
from placement.candidates.request import CandidateRequest
from placement.db import tables
from placement.db.transaction import reader
from placement.objects import conditions, exceptions

#: Root ids in the first window; each next window is 4 times as wide...
FIRST_WINDOW = 64
#: ... up to this many: when the answer is found in a part of the
#: deployment (trees of one aggregate, numbered together), a wider window
#: would compute rooms for many more trees than it needs.
WIDEST = 4096


@dataclass(frozen=True)
class Settings:
    """The ``[placement]`` options that shape the answer."""

    max_candidates: int = -1
    breadth_first: bool = False
    randomize: bool = False

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Settings:
        opts = conf.placement
        return cls(
            opts.max_allocation_candidates,
            opts.allocation_candidates_generation_strategy == "breadth-first",
            opts.randomize_allocation_candidates,
        )


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while an answer is built.

    A large answer allocates hundreds of thousands of small, acyclic objects
    (rows, tuples, pieces of text) that reference counting frees anyway; the
    cyclic collector would scan them, and the whole heap, over and over,
    which costs about a third of the time of a big request.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def find(engine: Engine, request: CandidateRequest, settings: Settings) -> bytes:
    """The ``GET /allocation_candidates`` body (JSON) for ``request``."""
    with _without_cyclic_gc():
        return _find(engine, request, settings)


def _find(engine: Engine, request: CandidateRequest, settings: Settings) -> bytes:
    with reader(engine) as conn:
        plan = resolve_plan(conn, request)
        if isinstance(plan, Stop):
            metrics.candidates_returned(0)
            return output.EMPTY
        kept, used_by_tree = _select(_limited(conn, plan, request, settings), request, settings)
        metrics.candidates_returned(len(kept))
        if not kept:
            return output.EMPTY
        roots = set().union(*(candidate.roots for candidate in kept))
        mapped = {p for candidate in kept for _, providers in candidate.mappings for p in providers}
        trees = summaries.load(conn, known.of(engine), roots, mapped)
    if used_by_tree is None:
        shown = {p for p, provider in trees.providers.items() if provider.root in roots}
    else:
        shown = set().union(*(used_by_tree[root] for root in roots))
    return _body(
        plan,
        request,
        kept,
        trees,
        summaries.text(trees, shown, request.version, request.requested_classes),
    )


def _limited(
    conn: Connection, plan: Plan, request: CandidateRequest, settings: Settings
) -> Iterator[Candidate]:
    """The candidates of ``plan`` up to ``[placement] max_allocation_candidates``,
    found a window of trees at a time when fewer than all are wanted."""
    limits = [settings.max_candidates] if settings.max_candidates >= 0 else []
    if request.limit is not None and not settings.randomize:
        limits.append(request.limit)
    windowed = not settings.breadth_first and bool(limits)
    stream = _stream(
        conn,
        plan,
        windowed=windowed,
        breadth_first=settings.breadth_first,
        wanted=min(limits, default=None),
    )
    if settings.max_candidates >= 0:
        return islice(stream, settings.max_candidates)
    return stream


def _body(
    plan: Plan, request: CandidateRequest, kept: list[Candidate], trees: Trees, text: str
) -> bytes:
    """The answer: ``kept`` rendered beside the summaries' ``text``."""
    names = {
        class_id: name
        for group, wanted in zip(plan.groups, request.groups, strict=True)
        for (class_id, _), name in zip(group.amounts, wanted.resources, strict=True)
    }
    if plan.one_provider_each:
        group = plan.groups[0]
        return output.one_provider_body(
            [candidate.mappings[0][1][0] for candidate in kept],
            trees,
            names,
            (group.suffix, group.amounts),
            text,
            request.version,
        )
    return output.body(kept, trees, names, text, request.version)


# --- resolve -------------------------------------------------------------------


def resolve_plan(conn: Connection, request: CandidateRequest) -> Plan | Stop:
    """Resolve names in upstream's order; a :class:`Stop` when nothing can match.

    A group that can match nothing (unknown aggregates or ``in_tree``) ends
    the answer there, before later groups' names are looked up; an unknown
    name is a 400 only if :func:`_upstream_stops_before` says so.
    """
    shape, known = deployment.shape(conn, *resolve.named(request))
    root_traits = resolve.root_traits(conn, request.root_traits, known)
    if root_traits and not _some_root(conn, root_traits):
        return Stop(STOP_ROOT_REQUIRED, root_traits)
    groups: list[ResolvedGroup] = []
    for wanted in request.groups:
        try:
            group = resolve.group(conn, wanted, known)
        except exceptions.NameNotFound:
            if _upstream_stops_before(conn, groups, root_traits, shape):
                return Stop(STOP_EARLIER, root_traits, shape, tuple(groups))
            raise
        if group.void:
            return Stop(STOP_VOID, root_traits, shape, (*groups, group))
        groups.append(group)
    return Plan.of(
        tuple(groups),
        shape,
        root_traits,
        isolate=request.isolate,
        same_subtrees=request.same_subtrees,
        one_provider_per_tree=not request.nested_aware,
    )


def _some_root(conn: Connection, traits: TraitIds) -> bool:
    rp = tables.resource_providers
    return conditions.anyone(
        conn, rp.c.parent_provider_id.is_(None), *conditions.has_traits(rp.c.id, traits)
    )


# --- the error-order probe -----------------------------------------------------


def _upstream_stops_before(
    conn: Connection, earlier: list[ResolvedGroup], root_traits: TraitIds, shape: Shape
) -> bool:
    """Whether upstream answers "no candidates" before it reaches a group
    whose name is unknown (and so never reports that name).

    Why: upstream resolves and searches one group at a time and returns an
    empty answer at the first group no provider can serve on its own; a
    later group's names are only looked up once every earlier group has a
    candidate. This engine resolves every group before searching any, so on
    an unknown name it runs each earlier group alone, as upstream would
    have. The probe costs queries on this error path only.
    """
    return not all(_matches_alone(conn, group, root_traits, shape) for group in earlier)


def _matches_alone(
    conn: Connection, group: ResolvedGroup, root_traits: TraitIds, shape: Shape
) -> bool:
    """Whether ``group`` on its own has a candidate (upstream's per-group step)."""
    plan = Plan.of((group,), shape, root_traits)
    return next(_stream(conn, plan, windowed=False, breadth_first=False), None) is not None


# --- generate ------------------------------------------------------------------


def _stream(
    conn: Connection,
    plan: Plan,
    *,
    windowed: bool,
    breadth_first: bool,
    wanted: int | None = None,
) -> Iterator[Candidate]:
    """Every candidate, anchor by anchor, window by window (``wanted``: how
    many the caller takes at most, if it says)."""
    sizes = Sizes(wanted)
    found = (
        _one_per_provider(conn, plan, windowed, sizes)
        if plan.one_provider_each
        else _combined(conn, plan, windowed, breadth_first, sizes)
    )
    for candidate in found:
        sizes.found += 1
        yield candidate


def _combined(
    conn: Connection, plan: Plan, windowed: bool, breadth_first: bool, sizes: Sizes
) -> Iterator[Candidate]:
    """The candidates of each window's anchors, combined by the search."""
    search = Search(plan.specs, plan.rules)
    shared = [slots.sharing_rows(conn, group, plan) for group in plan.groups]
    seen: set[tuple] = set()
    for window in windows(plan, windowed, narrow.roots(conn, plan, windowed), sizes):
        options = slots.gather(conn, plan, window, shared)
        if options is None:
            continue
        per_anchor = [search.candidates(anchor, options, seen) for anchor in options.anchors]
        if breadth_first:
            yield from _round_robin(per_anchor)
        else:
            for candidates in per_anchor:
                yield from candidates


def _one_per_provider(
    conn: Connection, plan: Plan, windowed: bool, sizes: Sizes
) -> Iterator[Candidate]:
    """One group where every tree is one provider and none shares: each
    provider that can serve the group alone is one candidate, nothing to
    combine (one anchor, one option, whichever the strategy)."""
    group = plan.groups[0]
    amounts = sorted(group.amounts)
    for window in windows(plan, windowed, narrow.roots(conn, plan, windowed), sizes):
        for row in query.provider_rows(conn, group, window=window):
            provider = row.provider
            yield Candidate(
                tuple([(provider, class_id, amount) for class_id, amount in amounts]),
                ((group.suffix, (provider,)),),
                (provider,) * len(amounts),
            )


class Sizes:
    """How many roots (or root ids) each next window takes.

    :data:`FIRST_WINDOW`, then 4 times as many each time, up to
    :data:`WIDEST`. When the caller said how many candidates it wants, no
    more than the windows so far suggest the rest needs, with a quarter to
    spare (at least :data:`FIRST_WINDOW`): a request for 100 candidates of
    a rare trait found 64 in the first window, and a second window of 256
    trees computed rooms for 220 it did not need (at 100k nodes, a third
    of the request's time).
    """

    def __init__(self, wanted: int | None = None) -> None:
        self.wanted = wanted
        #: Candidates taken so far, and roots (or root ids) visited.
        self.found = 0
        self.visited = 0
        self._last = 0

    def __iter__(self) -> Iterator[int]:
        while True:
            size = self._next()
            self._last = size
            yield size

    def _next(self) -> int:
        grown = min(self._last * 4, WIDEST) if self._last else FIRST_WINDOW
        if self.wanted is None or not self.found or self.found >= self.wanted:
            return grown
        needed = (self.wanted - self.found) * self.visited * 5 // (self.found * 4) + 1
        return min(grown, max(FIRST_WINDOW, needed))


def windows(
    plan: Plan, windowed: bool, roots: Iterator[int] | None = None, sizes: Sizes | None = None
) -> Iterator[Window]:
    """Windows of root ids, as wide as ``sizes`` says, or (not
    ``windowed``) one whole window, over the provider ids the plan's shape
    saw; or, given the only ``roots`` that can match (``narrow.roots``),
    windows listing those."""
    sizes = Sizes() if sizes is None else sizes
    if roots is not None:
        yield from _listed(plan, windowed, roots, sizes)
        return
    low, high = plan.shape.ids
    if low is None or high is None:
        return
    if not windowed:
        yield Window(low, high, plan.root_traits, whole=True)
        return
    for size in sizes:
        if low > high:
            return
        sizes.visited += size
        yield Window(low, low + size - 1, plan.root_traits)
        low += size


def _listed(plan: Plan, windowed: bool, roots: Iterator[int], sizes: Sizes) -> Iterator[Window]:
    """Windows of the ``roots`` listed, ascending (all of them in lists of
    :data:`WIDEST`, not ``windowed``)."""
    for size in sizes if windowed else repeat(WIDEST):
        listed = tuple(islice(roots, size))
        if not listed:
            return
        sizes.visited += len(listed)
        yield Window(listed[0], listed[-1], plan.root_traits, roots=listed)


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


# --- select --------------------------------------------------------------------


def _select(
    stream: Iterator[Candidate], request: CandidateRequest, settings: Settings
) -> tuple[list[Candidate], dict[int, set[int]] | None]:
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


def _recording(
    stream: Iterator[Candidate], used_by_tree: dict[int, set[int]]
) -> Iterator[Candidate]:
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
