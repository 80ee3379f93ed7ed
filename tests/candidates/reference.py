"""A tiny brute-force statement of what ``GET /allocation_candidates`` answers.

It reads a :class:`~tests.candidates.world.World` (no SQL), builds for every
anchor the *full* cartesian product of each group's options and only then
filters it, the slow and obvious way. The property tests hold the engine to
this on small random worlds. Only the set of candidates and of summarized
providers is modelled: ordering, limits and rendering are not.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from placement.candidates.request import CandidateRequest, RequestGroup
from tests.candidates.world import SHARING, Provider, World

#: (sorted (provider uuid, class, amount)), sorted (suffix, sorted uuids))
Key = tuple[tuple[tuple[str, str, int], ...], tuple[tuple[str, tuple[str, ...]], ...]]


def answer(world: World, request: CandidateRequest) -> tuple[set[Key], set[str]]:
    """(candidates, uuids of the summarized providers)."""
    candidates: dict[Key, set[int]] = {}
    for anchor in _anchors(world, request):
        options = [_options(world, group, anchor) for group in request.groups]
        for picks in itertools.product(*options):
            key = _combine(world, request, picks)
            if key is not None:
                candidates.setdefault(key[0], set()).update(key[1])
    if request.nested_aware:
        trees = {world.root(p) for used in candidates.values() for p in used}
        shown = {p.uuid for p in world.providers.values() if world.root(p.id) in trees}
    else:
        shown = {world.providers[p].uuid for used in candidates.values() for p in used}
    return set(candidates), shown


def _anchors(world: World, request: CandidateRequest) -> Iterator[int]:
    for provider in world.providers.values():
        if provider.parent is None and _traits_ok(
            provider.traits, request.root_traits.required, request.root_traits.forbidden
        ):
            yield provider.id


def _traits_ok(have: set[str], required, forbidden) -> bool:
    return all(have & any_of for any_of in required) and not have & forbidden


def _fits(provider: Provider, name: str, amount: int) -> bool:
    inv = provider.inventories.get(name)
    return (
        inv is not None
        and provider.used.get(name, 0) + amount <= inv.capacity
        and inv.min_unit <= amount <= inv.max_unit
        and amount % inv.step_size == 0
    )


def _in_all(aggregates: set[str], member_of) -> bool:
    return all(aggregates & any_of for any_of in member_of)


def _served(world: World, provider: Provider) -> set[int]:
    """Roots of the trees a sharing provider serves (through any aggregate)."""
    return {
        world.root(other.id)
        for other in world.providers.values()
        if other.aggregates & provider.aggregates
    }


def _tree(world: World, group: RequestGroup) -> int | None:
    if group.in_tree is None:
        return None
    return world.root(world.by_uuid(group.in_tree).id)


def _options(world: World, group: RequestGroup, anchor: int) -> list[tuple]:
    """Each way the group can be served under ``anchor``: ((provider, class, amount)...)
    with the providers named, plus (suffix, providers) for the mappings."""
    if group.granular:
        return [
            ((tuple((p.id, rc, n) for rc, n in group.resources.items())), (p.id,))
            for p in world.providers.values()
            if _granular_ok(world, group, p, anchor)
        ]
    per_class = []
    for name, amount in group.resources.items():
        per_class.append(
            [
                p.id
                for p in world.providers.values()
                if _unsuffixed_ok(world, group, p, name, amount, anchor)
            ]
        )
    options = []
    for picks in itertools.product(*per_class):
        traits = set().union(*(world.providers[p].traits for p in picks))
        if all(traits & any_of for any_of in group.traits.required):
            options.append(
                (
                    tuple(
                        (p, rc, n)
                        for p, (rc, n) in zip(picks, group.resources.items(), strict=True)
                    ),
                    tuple(sorted(set(picks))),
                )
            )
    return options


def _granular_ok(world: World, group: RequestGroup, p: Provider, anchor: int) -> bool:
    aggs = group.aggregates
    if not (group.resources or group.traits.required or aggs.member_of):
        return False
    if not _traits_ok(p.traits, group.traits.required, group.traits.forbidden):
        return False
    if not _in_all(p.aggregates, aggs.member_of) or p.aggregates & aggs.forbidden:
        return False
    if not all(_fits(p, rc, n) for rc, n in group.resources.items()):
        return False
    tree = _tree(world, group)
    if group.resources and tree is not None and world.root(p.id) != tree:
        return False
    return world.root(p.id) == anchor or (SHARING in p.traits and anchor in _served(world, p))


def _unsuffixed_ok(
    world: World, group: RequestGroup, p: Provider, name: str, amount: int, anchor: int
) -> bool:
    aggs = group.aggregates
    if not _fits(p, name, amount) or p.traits & group.traits.forbidden:
        return False
    root = world.providers[world.root(p.id)]
    tree = _tree(world, group)
    if root.id == anchor and (tree is None or tree == anchor):
        on_own = _in_all(p.aggregates, aggs.member_of) or _in_all(root.aggregates, aggs.member_of)
        if on_own and not (p.aggregates | root.aggregates) & aggs.forbidden:
            return True
    anchor_aggs = world.providers[anchor].aggregates
    return (
        tree is None
        and SHARING in p.traits
        and anchor in _served(world, p)
        and _in_all(p.aggregates, aggs.member_of)
        and not (p.aggregates | anchor_aggs) & aggs.forbidden
    )


def _combine(world: World, request: CandidateRequest, picks) -> tuple[Key, set[int]] | None:
    amounts: dict[tuple[int, str], int] = {}
    for allocations, _ in picks:
        for p, rc, n in allocations:
            amounts[p, rc] = amounts.get((p, rc), 0) + n
    for (p, rc), n in amounts.items():
        inv = world.providers[p].inventories[rc]
        if world.providers[p].used.get(rc, 0) + n > inv.capacity or n > inv.max_unit:
            return None
    granular = [
        providers[0]
        for group, (_, providers) in zip(request.groups, picks, strict=True)
        if group.granular
    ]
    if request.isolate and len(set(granular)) != len(granular):
        return None
    by_suffix = {
        group.suffix: set(providers)
        for group, (_, providers) in zip(request.groups, picks, strict=True)
    }
    for suffixes in request.same_subtrees:
        members = set().union(*(by_suffix[s] for s in suffixes))
        if not any(all(m in world.ancestors(o) for o in members) for m in members):
            return None
    used = {p for p, _ in amounts}
    if not request.nested_aware and len({world.root(p) for p in used}) != len(used):
        return None
    uuid = lambda p: world.providers[p].uuid  # noqa: E731
    key = (
        tuple(sorted((uuid(p), rc, n) for (p, rc), n in amounts.items())),
        tuple(sorted((s, tuple(sorted(uuid(p) for p in ps))) for s, ps in by_suffix.items())),
    )
    return key, used
