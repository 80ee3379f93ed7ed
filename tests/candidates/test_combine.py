"""The combination step alone: slots, rules and pruning, no database."""

from __future__ import annotations

from placement.candidates.combine import Search
from placement.candidates.model import Ancestry, Facts, Room, Rules, Slot, SlotSpec, WindowOptions

VCPU, DISK = 0, 2
ANCHOR = 1


def _facts(rooms: dict, roots: dict | None = None, **kwargs) -> Facts:
    providers = {p for p, _ in rooms}
    return Facts(
        rooms={key: Room(left, max_unit) for key, (left, max_unit) in rooms.items()},
        roots=roots or dict.fromkeys(providers, ANCHOR),
        **kwargs,
    )


def _slot(suffix: str, amounts, providers, *, granular=True, shared=()) -> Slot:
    return Slot(SlotSpec(suffix, granular, tuple(amounts)), {ANCHOR: list(providers)}, set(shared))


def _run(slots, facts, rules=Rules(), seen=None):
    search = Search([slot.spec for slot in slots], rules)
    window = WindowOptions(tuple(slots), facts, (ANCHOR,))
    return list(search.candidates(ANCHOR, window, set() if seen is None else seen))


def test_amounts_on_one_provider_are_summed_and_checked():
    facts = _facts({(2, VCPU): (3, 10), (3, VCPU): (8, 2)})
    slots = [_slot("1", [(VCPU, 2)], [2, 3]), _slot("2", [(VCPU, 2)], [2, 3])]
    found = {c.allocations for c in _run(slots, facts)}
    # 2+2 exceeds the 3 left on provider 2 and the max_unit 2 of provider 3.
    assert found == {((2, VCPU, 2), (3, VCPU, 2))}


def test_isolate_keeps_suffixed_groups_apart():
    facts = _facts({(2, VCPU): (8, 8), (3, VCPU): (8, 8)})
    slots = [_slot("1", [(VCPU, 1)], [2, 3]), _slot("2", [(VCPU, 1)], [2, 3])]
    assert len(_run(slots, facts)) == 4
    isolated = _run(slots, facts, Rules(isolate=True))
    assert sorted(c.mappings for c in isolated) == [
        (("1", (2,)), ("2", (3,))),
        (("1", (3,)), ("2", (2,))),
    ]


def test_isolate_ignores_the_unsuffixed_group():
    facts = _facts({(2, VCPU): (8, 8), (2, DISK): (8, 8)})
    slots = [_slot("", [(DISK, 1)], [2], granular=False), _slot("1", [(VCPU, 1)], [2])]
    assert len(_run(slots, facts, Rules(isolate=True))) == 1


def test_same_subtree_needs_a_common_ancestor_among_the_chosen():
    # 1 ─┬─ 2 ── 4
    #    └─ 3
    ancestry = Ancestry({1: None, 2: 1, 3: 1, 4: 2})
    facts = _facts({(2, VCPU): (8, 8), (3, VCPU): (8, 8), (4, DISK): (8, 8)}, ancestry=ancestry)
    slots = [_slot("_C", [(VCPU, 1)], [2, 3]), _slot("_D", [(DISK, 1)], [4])]
    found = _run(slots, facts, Rules(same_subtrees=(frozenset({"_C", "_D"}),)))
    assert [c.mappings for c in found] == [(("_C", (2,)), ("_D", (4,)))]


def test_one_provider_per_tree_before_1_29():
    facts = _facts(
        {(2, VCPU): (8, 8), (3, DISK): (8, 8), (9, DISK): (8, 8)}, roots={2: 1, 3: 1, 9: 9}
    )
    slots = [
        _slot("", [(VCPU, 1)], [2], granular=False),
        _slot("", [(DISK, 1)], [3, 9], granular=False),
    ]
    assert len(_run(slots, facts)) == 2
    found = _run(slots, facts, Rules(one_provider_per_tree=True))
    assert [c.allocations for c in found] == [((2, VCPU, 1), (9, DISK, 1))]
    assert found[0].trees == {1, 9}


def test_unsuffixed_traits_are_satisfied_collectively():
    facts = _facts(
        {(2, VCPU): (8, 8), (3, DISK): (8, 8), (4, DISK): (8, 8)},
        trait_bits={2: 0b01, 3: 0b10, 4: 0},
    )
    slots = [
        _slot("", [(VCPU, 1)], [2], granular=False),
        _slot("", [(DISK, 1)], [3, 4], granular=False),
    ]
    found = _run(slots, facts, Rules(trait_bits=0b11))
    assert [c.mappings for c in found] == [(("", (2, 3)),)]


def test_resourceless_groups_only_map():
    facts = _facts({(2, VCPU): (8, 8)}, roots={2: ANCHOR, 5: ANCHOR})
    slots = [_slot("_A", [(VCPU, 1)], [2]), _slot("_B", [], [2, 5])]
    found = _run(slots, facts)
    assert [c.allocations for c in found] == [((2, VCPU, 1),), ((2, VCPU, 1),)]
    assert [c.mappings for c in found] == [
        (("_A", (2,)), ("_B", (2,))),
        (("_A", (2,)), ("_B", (5,))),
    ]


def test_all_sharing_candidates_are_returned_once_across_anchors():
    facts = _facts({(7, DISK): (8, 8)}, roots={7: 7})
    seen: set = set()
    slot = Slot(SlotSpec("", False, ((DISK, 1),)), {1: [7], 4: [7]}, {7})
    search = Search([slot.spec], Rules())
    window = WindowOptions((slot,), facts, (1, 4))
    first = list(search.candidates(1, window, seen))
    second = list(search.candidates(4, window, seen))
    assert (len(first), len(second)) == (1, 0)


def test_wide_tree_is_pruned_not_enumerated():
    # Eight groups of one unit over eight single-unit children: 8! answers,
    # found without walking the 8**8 products.
    children = list(range(2, 10))
    facts = _facts({(p, VCPU): (1, 1) for p in children})
    slots = [_slot(str(i), [(VCPU, 1)], children) for i in range(1, 9)]
    assert len(_run(slots, facts)) == 40320
