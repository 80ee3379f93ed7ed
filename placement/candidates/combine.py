"""Combine the per-group choices of one anchor into allocation candidates.

Pure: no database. A candidate picks one provider per *slot*: one slot per
suffixed group, and one per resource class of the unsuffixed group (a tree
serves that group collectively, each class from one provider). The search is
depth first and checks every rule as soon as the slots it needs are filled,
so a partial choice that already breaks one is never extended:

* capacity: amounts landing on the same provider and class are summed and
  must fit what is left (``capacity - used``) and ``max_unit``;
* ``group_policy=isolate``: suffixed groups use distinct providers;
* ``same_subtree``: the providers of the named groups hang below one of them;
* before 1.29: a tree contributes at most one provider;
* the unsuffixed group's required traits, collectively over its providers.

Identical suffixed groups (same amounts and the same options, not named in
``same_subtree``) are interchangeable: the search picks their providers in
non-decreasing order only and then hands out every distinct permutation of
that pick to the groups. The rules above cannot tell the permutations apart,
so nothing valid is lost, and a request for eight identical devices on a
host with eight single devices explores one combination instead of 8**8
(upstream bug 2070257) before writing out its 8! answers.

The same candidate can be reached from several anchors only when every
provider in it is a sharing provider; those few are de-duplicated with
``seen`` (candidate keys).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import permutations, product

from placement.candidates.model import (
    UNCHECKED,
    Candidate,
    Facts,
    Room,
    Rules,
    Slot,
    SlotSpec,
    WindowOptions,
)

#: What taking a provider for a slot adds up: ((provider, class), amount, limit).
Need = tuple[tuple[int, int], int, int]
#: A slot's options under one anchor: each provider with its needs.
Level = list[tuple[int, tuple[Need, ...]]]


class Search:
    """The depth-first search over a fixed list of slot specs."""

    def __init__(self, specs: Sequence[SlotSpec], rules: Rules) -> None:
        self.specs = specs
        self.rules = rules
        unsuffixed = [i for i, spec in enumerate(specs) if not spec.granular]
        self._traits = (unsuffixed[-1], unsuffixed) if unsuffixed and rules.trait_bits else None
        self._subtrees: dict[int, list[list[int]]] = {}
        for suffixes in rules.same_subtrees:
            members = [i for i, spec in enumerate(specs) if spec.suffix in suffixes]
            if members:
                self._subtrees.setdefault(max(members), []).append(members)
        self._mappings = [
            (suffix, [i for i, spec in enumerate(specs) if spec.suffix == suffix])
            for suffix in dict.fromkeys(spec.suffix for spec in specs)
        ]
        self._isolated = [rules.isolate and spec.granular for spec in specs]
        # Before 1.29 a slot that allocates takes its tree for the candidate.
        self._tree_rules = [rules.one_provider_per_tree and bool(spec.amounts) for spec in specs]
        classes = [class_id for spec in specs for class_id, _ in spec.amounts]
        # Only a class asked for by several slots can see amounts add up.
        self._rooms_matter = len(classes) != len(set(classes))
        self._checked = set(self._subtrees) | ({self._traits[0]} if self._traits else set())
        self._constrained = set().union(*rules.same_subtrees)
        self._suffixes = [spec.suffix for spec in specs]
        self._one_slot_each = len(set(self._suffixes)) == len(specs)

    def candidates(
        self, anchor: int, window: WindowOptions, seen: set[tuple]
    ) -> Iterator[Candidate]:
        """Every valid combination of the options at ``anchor`` (one of
        ``window.anchors``), deduplicated."""
        slots, facts = window.slots, window.facts
        options = [slot.choices[anchor] for slot in slots]
        if all(len(providers) == 1 for providers in options):
            chosen = [providers[0] for providers in options]
            candidate = self._only(chosen, facts)
            if candidate is not None and not _repeated(candidate, chosen, slots, seen):
                yield candidate
            return
        twins = self._twins(options)
        arranged = any(twin is not None for twin in twins)
        sharing = any(slot.shared for slot in slots)
        roots = facts.roots
        for chosen in self._search(self._levels(options, facts), facts, twins):
            allocations = self._allocations(chosen)
            placed = tuple([roots[p] for p, _, _ in allocations])
            if not (arranged or sharing):
                yield Candidate(allocations, self._mapped(chosen), placed)
                continue
            for picks in self._arrangements(chosen, twins):
                candidate = Candidate(allocations, self._mapped(picks), placed)
                if not _repeated(candidate, picks, slots, seen):
                    yield candidate

    def _levels(self, options: list[list[int]], facts: Facts) -> list[Level]:
        """Each slot's options with what taking each adds up (nothing when
        no class is asked for by two slots)."""
        if not self._rooms_matter:
            return [[(p, ()) for p in providers] for providers in options]
        return [
            [(p, self._needs(p, spec, facts.rooms)) for p in providers]
            for spec, providers in zip(self.specs, options, strict=True)
        ]

    @staticmethod
    def _needs(
        provider: int, spec: SlotSpec, rooms: dict[tuple[int, int], Room]
    ) -> tuple[Need, ...]:
        """What taking ``provider`` for a slot adds up, for each class whose
        room matters (see ``model.UNCHECKED``)."""
        needs: list[Need] = []
        for class_id, amount in spec.amounts:
            room = rooms[provider, class_id]
            if room is not UNCHECKED:
                needs.append(((provider, class_id), amount, min(room.left, room.max_unit)))
        return tuple(needs)

    def _allocations(self, chosen: list[int]) -> tuple[tuple[int, int, int], ...]:
        """Amounts per (provider, class) of a combination, summed and sorted."""
        if not self._rooms_matter:
            # No class in two slots: nothing to add up.
            return tuple(
                sorted(
                    [
                        (provider, class_id, amount)
                        for spec, provider in zip(self.specs, chosen, strict=True)
                        for class_id, amount in spec.amounts
                    ]
                )
            )
        amounts: dict[tuple[int, int], int] = {}
        for spec, provider in zip(self.specs, chosen, strict=True):
            for class_id, amount in spec.amounts:
                key = (provider, class_id)
                amounts[key] = amounts.get(key, 0) + amount
        return tuple([(p, rc, amount) for (p, rc), amount in sorted(amounts.items())])

    def _only(self, chosen: list[int], facts: Facts) -> Candidate | None:
        """The one combination when every slot has one option, if it is valid."""
        used: dict[tuple[int, int], int] = {}
        for spec, provider in zip(self.specs, chosen, strict=True):
            for class_id, amount in spec.amounts:
                key = (provider, class_id)
                used[key] = used.get(key, 0) + amount
        rooms = facts.rooms
        for key, amount in used.items():
            room = rooms[key]
            if amount > room.left or amount > room.max_unit:
                return None
        if self._shares_what_rules_forbid(chosen, used, facts):
            return None
        if not all(self._allowed(level, chosen, facts) for level in self._checked):
            return None
        allocations = tuple([(p, rc, amount) for (p, rc), amount in sorted(used.items())])
        return Candidate(
            allocations, self._mapped(chosen), tuple([facts.roots[p] for p, _, _ in allocations])
        )

    def _shares_what_rules_forbid(
        self, chosen: list[int], used: dict[tuple[int, int], int], facts: Facts
    ) -> bool:
        """Whether two granular slots took one provider (``group_policy=isolate``)
        or, before 1.29, two allocating providers are in one tree."""
        if self.rules.isolate:
            granular = [p for p, spec in zip(chosen, self.specs, strict=True) if spec.granular]
            if len(set(granular)) != len(granular):
                return True
        if self.rules.one_provider_per_tree:
            placed = {p for p, _ in used}
            if len({facts.roots[p] for p in placed}) != len(placed):
                return True
        return False

    def _twins(self, options: list[list[int]]) -> list[int | None]:
        """For each slot, the earlier slot it is interchangeable with (or None)."""
        twins: list[int | None] = [None] * len(options)
        last: dict[tuple, int] = {}
        for i, spec in enumerate(self.specs):
            if spec.granular and spec.suffix not in self._constrained:
                key = (spec.amounts, tuple(options[i]))
                twins[i] = last.get(key)
                last[key] = i
        return twins

    @staticmethod
    def _arrangements(chosen: list[int], twins: list[int | None]) -> Iterator[list[int]]:
        """``chosen`` with each run of twins' picks permuted in every distinct way."""
        runs = _twin_runs(twins)
        if not runs:
            yield chosen
            return
        orders = [_orders(run, [chosen[i] for i in run]) for run in runs]
        arranged = list(chosen)
        where, distinct = orders[0]
        if len(orders) == 1 and isinstance(where, slice):
            for order in distinct:
                arranged[where] = order
                yield arranged
            return
        for combination in product(*(distinct for _, distinct in orders)):
            for (where, _), order in zip(orders, combination, strict=True):
                if isinstance(where, slice):
                    arranged[where] = order
                else:
                    for i, p in zip(where, order, strict=True):
                        arranged[i] = p
            yield arranged

    # The hot loop, kept whole on purpose (see its docstring): splitting it
    # costs a call per option visited.
    def _search(  # noqa: C901, PLR0915
        self, levels: list[Level], facts: Facts, twins: list[int | None]
    ) -> Iterator[list[int]]:
        """Iterative backtracking; ``pos[i]`` is the option taken at level ``i``
        (a twin starts at its twin's pick: twins pick in non-decreasing order).

        The hot loop: kept flat (no calls for the capacity check) because a
        wide tree visits every level's options once per partial combination.
        """
        size = len(levels)
        chosen = [0] * size
        pos = [-1] * size
        used: dict[tuple[int, int], int] = {}
        used_get = used.get
        trees = _Trees(facts.roots)
        tree_rules = self._tree_rules
        isolated, granular = self._isolated, set()
        checked = self._checked

        def release(provider: int, needs: tuple[Need, ...], isolate: bool, tree_rule: bool) -> None:
            """Undo taking ``provider`` (on backtracking only)."""
            _give_back(used, needs)
            if isolate:
                granular.discard(provider)
            if tree_rule:
                trees.give_back(provider)

        level = 0
        while level >= 0:
            options = levels[level]
            isolate = isolated[level]
            tree_rule = tree_rules[level]
            index = pos[level]
            if index >= 0:
                provider, needs = options[index]
                release(provider, needs, isolate, tree_rule)
                index += 1
            else:
                twin = twins[level]
                index = 0 if twin is None else pos[twin]
            while index < len(options):
                provider, needs = options[index]
                for key, amount, limit in needs:
                    if used_get(key, 0) + amount > limit:
                        break
                else:
                    if not (isolate and provider in granular) and (
                        not tree_rule or trees.admits(provider)
                    ):
                        for key, amount, _ in needs:
                            used[key] = used_get(key, 0) + amount
                        if isolate:
                            granular.add(provider)
                        if tree_rule:
                            trees.take(provider)
                        chosen[level] = provider
                        if level not in checked or self._allowed(level, chosen, facts):
                            break
                        release(provider, needs, isolate, tree_rule)
                index += 1
            if index == len(options):
                pos[level] = -1
                level -= 1
                continue
            pos[level] = index
            if level == size - 1:
                yield chosen
            else:
                level += 1

    def _allowed(self, level: int, chosen: list[int], facts: Facts) -> bool:
        """The rules that become checkable once slot ``level`` is filled."""
        if self._traits is not None and level == self._traits[0]:
            bits = 0
            for i in self._traits[1]:
                bits |= facts.trait_bits.get(chosen[i], 0)
            if bits & self.rules.trait_bits != self.rules.trait_bits:
                return False
        for members in self._subtrees.get(level, ()):
            assert facts.ancestry is not None
            if len(members) == 2:
                if not facts.ancestry.related(chosen[members[0]], chosen[members[1]]):
                    return False
            elif not facts.ancestry.same_subtree({chosen[i] for i in members}):
                return False
        return True

    def _mapped(self, chosen: list[int]) -> tuple[tuple[str, tuple[int, ...]], ...]:
        if self._one_slot_each:
            return tuple(
                [
                    (suffix, (provider,))
                    for suffix, provider in zip(self._suffixes, chosen, strict=True)
                ]
            )
        return tuple(
            [
                (
                    suffix,
                    (chosen[slots[0]],)
                    if len(slots) == 1
                    else tuple(sorted({chosen[i] for i in slots})),
                )
                for suffix, slots in self._mappings
            ]
        )


def _repeated(
    candidate: Candidate, picks: list[int], slots: Sequence[Slot], seen: set[tuple]
) -> bool:
    """Whether an all-sharing candidate was produced under an earlier anchor."""
    if all(p in slot.shared for p, slot in zip(picks, slots, strict=True)):
        if candidate.key in seen:
            return True
        seen.add(candidate.key)
    return False


def _twin_runs(twins: list[int | None]) -> list[list[int]]:
    """The slots of each chain of twins (see ``Search._twins``), in slot order."""
    runs: dict[int, list[int]] = {}
    for i, twin in enumerate(twins):
        if twin is not None:
            runs.setdefault(twin, [twin]).append(i)
            runs[i] = runs.pop(twin)
    return list(runs.values())


def _orders(
    run: list[int], picked: list[int]
) -> tuple[slice | list[int], Iterable[tuple[int, ...]]]:
    """Where a run of twin slots sits in a combination (a slice when the
    slots are adjacent, assigned in one step) and every distinct order of
    their ``picked`` providers."""
    ways: Iterable[tuple[int, ...]] = (
        permutations(picked)
        if len(set(picked)) == len(picked)
        else sorted(set(permutations(picked)))
    )
    if run == list(range(run[0], run[-1] + 1)):
        return slice(run[0], run[-1] + 1), ways
    return run, ways


def _give_back(used: dict[tuple[int, int], int], needs: tuple[Need, ...]) -> None:
    for key, amount, _ in needs:
        left = used[key] - amount
        if left:
            used[key] = left
        else:
            del used[key]


class _Trees:
    """Before 1.29: which provider of each tree the partial combination uses."""

    def __init__(self, roots: dict[int, int]) -> None:
        self._roots = roots
        #: root → [provider, how many slots chose it]
        self._owners: dict[int, list[int]] = {}

    def admits(self, provider: int) -> bool:
        owner = self._owners.get(self._roots[provider])
        return owner is None or owner[0] == provider

    def take(self, provider: int) -> None:
        self._owners.setdefault(self._roots[provider], [provider, 0])[1] += 1

    def give_back(self, provider: int) -> None:
        root = self._roots[provider]
        owner = self._owners[root]
        owner[1] -= 1
        if not owner[1]:
            del self._owners[root]
