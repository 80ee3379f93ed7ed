"""Each slot's options per anchor, from the group rows of one window.

A suffixed group's slot takes the providers of its rows, under their own
root and, for sharing providers, under every root they serve; the
unsuffixed group's rows go to the slot of their class the same way. The
facts the search needs about those providers (tree root, room left per
class, trait bits, and the ancestry for ``same_subtree``) are collected on
the way, into one value per window that no later step changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sqlalchemy.engine import Connection

from placement.candidates import query
from placement.candidates.model import (
    ClassRow,
    Facts,
    Plan,
    ProviderRow,
    ResolvedGroup,
    Slot,
    Window,
    WindowOptions,
)
from placement.candidates.trees import ancestry, sharing_anchors

#: A group query's row: either kind shares the fields :func:`_add_shared` reads.
_Row = TypeVar("_Row", ProviderRow, ClassRow)


def sharing_rows(
    conn: Connection, group: ResolvedGroup, plan: Plan
) -> list[ProviderRow] | list[ClassRow]:
    """Sharing providers that can serve ``group`` (none for an unsuffixed ``in_tree``)."""
    if not plan.shape.sharing:
        return []
    if group.granular:
        return query.provider_rows(
            conn, group, sharing_trait=plan.shape.sharing_trait, summed=plan.summed
        )
    if group.tree is not None:
        return []
    return query.class_rows(conn, group, sharing_trait=plan.shape.sharing_trait, summed=plan.summed)


def gather(
    conn: Connection, plan: Plan, window: Window, shared: list[list], *, partial: bool = False
) -> WindowOptions | None:
    """Everything the search needs about the trees of ``window``; None when
    no anchor there has an option for every slot.

    ``shared`` holds each group's :func:`sharing_rows`. For ``same_subtree``
    the facts include the ancestry of the window's trees and of the trees
    of the sharing providers offered. ``partial`` (the explanation's) reads
    every group even when one has no option at all, and returns the
    options even without an anchor (never None).
    """
    slots = tuple(Slot(spec) for spec in plan.specs)
    facts = Facts()
    # The suffixed groups first: one provider serves each, so their reads
    # are cheap, and the unsuffixed group's (every tree provider's room of
    # each class) is then read only for the trees they left.
    for group, group_shared in sorted(
        zip(plan.groups, shared, strict=True), key=lambda pair: not pair[0].granular
    ):
        if group.granular:
            index = next(i for i, spec in enumerate(plan.specs) if spec.suffix == group.suffix)
            touched = [slots[index]]
            _add_provider_rows(conn, group, window, group_shared, slots[index], facts, plan.summed)
        else:
            left = window if partial else _left(window, slots)
            if left.roots == ():
                return None
            touched = _add_unsuffixed(conn, plan, group, left, group_shared, slots, facts)
        if not (partial or all(slot.choices for slot in touched)):
            return None
    anchors = common_anchors(slots)
    if not (anchors or partial):
        return None
    if plan.rules.same_subtrees and anchors:
        own_roots = {facts.roots[p] for slot in slots for p in slot.shared}
        facts = replace(facts, ancestry=ancestry(conn, window, own_roots))
    return WindowOptions(slots, facts, anchors)


def _add_unsuffixed(
    conn: Connection,
    plan: Plan,
    group: ResolvedGroup,
    window: Window,
    shared: list,
    slots: tuple[Slot, ...],
    facts: Facts,
) -> list[Slot]:
    """Read the unsuffixed group's rows into its slots (one per class);
    returns those slots."""
    by_class = {
        spec.amounts[0][0]: slot
        for spec, slot in zip(plan.specs, slots, strict=True)
        if not spec.granular
    }
    if plan.shape.flat:
        _add_flat_rows(conn, group, window, by_class, facts, plan.rules.trait_bits, plan.summed)
    else:
        _add_class_rows(conn, plan, group, window, shared, by_class, facts)
    return list(by_class.values())


def _left(window: Window, slots: Sequence[Slot]) -> Window:
    """``window`` as far as the suffixed groups' slots read so far allow:
    only roots where each has an option (all of it when none was read)."""
    granular = [slot for slot in slots if slot.spec.granular]
    if not granular:
        return window
    return Window(window.low, window.high, window.root_traits, roots=common_anchors(granular))


def common_anchors(slots: Sequence[Slot]) -> tuple[int, ...]:
    """Anchors where every slot has at least one option, ascending."""
    common = set(slots[0].choices)
    for slot in slots[1:]:
        common.intersection_update(slot.choices)
    return tuple(sorted(common))


def _add_provider_rows(
    conn: Connection,
    group: ResolvedGroup,
    window: Window,
    shared: list[ProviderRow],
    slot: Slot,
    facts: Facts,
    summed: frozenset[int],
) -> None:
    def add(row: ProviderRow, anchor: int) -> None:
        slot.choices.setdefault(anchor, []).append(row.provider)
        facts.roots[row.provider] = row.root
        for class_id, room in row.rooms:
            facts.rooms[row.provider, class_id] = room

    for row in query.provider_rows(conn, group, window=window, summed=summed):
        add(row, row.root)
    if shared:
        slot.shared.update(row.provider for row in shared)
        served = sharing_anchors(conn, [row.provider for row in shared], window)
        _add_shared(shared, served, facts, add)
        for providers in slot.choices.values():
            providers.sort()


def _add_flat_rows(
    conn: Connection,
    group: ResolvedGroup,
    window: Window,
    by_class: dict[int, Slot],
    facts: Facts,
    trait_bits: int,
    summed: frozenset[int],
) -> None:
    """The unsuffixed group when every tree is one provider and none shares:
    each provider must then serve all of it alone, which one query decides."""
    for row in query.provider_rows(conn, group, window=window, summed=summed):
        facts.roots[row.provider] = row.root
        facts.trait_bits[row.provider] = trait_bits
        for class_id, room in row.rooms:
            by_class[class_id].choices.setdefault(row.root, []).append(row.provider)
            facts.rooms[row.provider, class_id] = room


def _add_class_rows(
    conn: Connection,
    plan: Plan,
    group: ResolvedGroup,
    window: Window,
    shared: list[ClassRow],
    by_class: dict[int, Slot],
    facts: Facts,
) -> None:
    def add(row: ClassRow, anchor: int) -> None:
        by_class[row.resource_class].choices.setdefault(anchor, []).append(row.provider)
        facts.roots[row.provider] = row.root
        facts.rooms[row.provider, row.resource_class] = row.room
        facts.trait_bits[row.provider] = row.trait_bits

    rows = query.class_rows(
        conn, group, window=window, summed=plan.summed, unshared=not plan.shape.sharing
    )
    for row in rows:
        add(row, row.root)
    if shared:
        for row in shared:
            by_class[row.resource_class].shared.add(row.provider)
        served = sharing_anchors(
            conn, {row.provider for row in shared}, window, group.aggregates.forbidden
        )
        _add_shared(shared, served, facts, add)
        for slot in by_class.values():
            for providers in slot.choices.values():
                providers.sort()


def _add_shared(
    rows: list[_Row], served: dict[int, set[int]], facts: Facts, add: Callable[[_Row, int], None]
) -> None:
    """Sharing ``rows``: each provider is an option at every tree it serves
    (``served``, from :func:`sharing_anchors`) besides its own, whose rows
    the group's tree query gave already."""
    for row in rows:
        facts.roots[row.provider] = row.root
        for anchor in served.get(row.provider, ()):
            if anchor != row.root:
                add(row, anchor)
