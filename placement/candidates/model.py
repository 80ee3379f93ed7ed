"""The values the candidate pipeline passes from step to step.

Plain data and the little logic that belongs to it; no database, no SQL
(``tests/candidates/test_model.py`` holds this module and ``combine`` to
that), so the pure steps import them without the SQL steps:

* the resolved request: :data:`TraitIds`, :data:`AggregateIds` (the
  query string's filters in ids), :class:`ResolvedGroup`, then the
  :class:`Plan` (with :class:`SlotSpec`, :class:`Rules` and the
  deployment's :class:`Shape`);
* one window of trees: :class:`Window` in, the group rows
  (:class:`ProviderRow`, :class:`ClassRow` with their :class:`Room`) out,
  gathered into :class:`WindowOptions` (:class:`Slot`, :class:`Facts`,
  :class:`Ancestry`);
* the answer: :class:`Candidate`, and the :class:`Trees` its summaries show.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from placement.filters import AggregateFilter, TraitFilter

# --- the resolved request --------------------------------------------------------

#: Trait ids: each set of ``required`` needs one member; none of ``forbidden``.
TraitIds = TraitFilter[int]
#: Aggregate ids: one of each ``member_of`` set is needed; none of ``forbidden``.
AggregateIds = AggregateFilter[int]


#: :attr:`ResolvedGroup.void`: a ``member_of`` set names no provider's aggregate.
VOID_MEMBER_OF = "member_of"
#: :attr:`ResolvedGroup.void`: the ``in_tree`` provider does not exist.
VOID_IN_TREE = "in_tree"


@dataclass(frozen=True)
class ResolvedGroup:
    """A request group in database terms."""

    suffix: str
    #: (resource class id, amount), in the order the request lists them.
    amounts: tuple[tuple[int, int], ...]
    traits: TraitIds
    aggregates: AggregateIds
    #: Root id of the ``in_tree`` provider's tree.
    tree: int | None = None
    #: Why the group can match nothing, if it can't: :data:`VOID_MEMBER_OF`
    #: (no provider in its aggregates) or :data:`VOID_IN_TREE` (unknown tree).
    void: str = ""

    @property
    def granular(self) -> bool:
        return self.suffix != ""


@dataclass(frozen=True)
class Shape:
    """What kinds of provider the deployment has, which allows shortcuts."""

    #: Some provider is marked as sharing.
    sharing: bool
    #: Some provider has a parent.
    nested: bool
    #: The id of the trait that marks sharing providers.
    sharing_trait: int = 0
    #: The lowest and highest provider id (None, None: no provider at all).
    ids: tuple[int | None, int | None] = (None, None)

    @property
    def flat(self) -> bool:
        """Every tree is a single provider that shares nothing."""
        return not (self.sharing or self.nested)


@dataclass(frozen=True)
class SlotSpec:
    """One choice of provider a candidate makes."""

    suffix: str
    granular: bool
    #: (class id, amount) the chosen provider gives for this slot.
    amounts: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Rules:
    """The request-wide rules a combination must follow."""

    isolate: bool = False
    same_subtrees: tuple[frozenset[str], ...] = ()
    one_provider_per_tree: bool = False
    #: Bits the unsuffixed group's providers must cover together (0: none).
    trait_bits: int = 0


@dataclass(frozen=True)
class Plan:
    """A resolved request, ready to run: all the later steps read of it.

    Build it with :meth:`of`, which derives the slots and the summed
    classes from the groups.
    """

    groups: tuple[ResolvedGroup, ...]
    #: The unsuffixed group's classes first (one slot each), then one slot
    #: per suffixed group.
    specs: tuple[SlotSpec, ...]
    rules: Rules
    #: ``root_required``: the traits every candidate's tree root must have.
    root_traits: TraitIds
    shape: Shape
    #: Classes several groups ask for: only their amounts can add up.
    summed: frozenset[int]

    @classmethod
    def of(
        cls,
        groups: tuple[ResolvedGroup, ...],
        shape: Shape,
        root_traits: TraitIds,
        *,
        isolate: bool = False,
        same_subtrees: tuple[frozenset[str], ...] = (),
        one_provider_per_tree: bool = False,
    ) -> Plan:
        specs = tuple(
            SlotSpec("", False, (amount,))
            for group in groups
            if not group.granular
            for amount in group.amounts
        ) + tuple(SlotSpec(group.suffix, True, group.amounts) for group in groups if group.granular)
        # A flat provider meets all of the unsuffixed group's required sets.
        trait_bits = next(
            ((1 << len(group.traits.required)) - 1 for group in groups if not group.granular), 0
        )
        counts: dict[int, int] = {}
        for group in groups:
            for class_id, _ in group.amounts:
                counts[class_id] = counts.get(class_id, 0) + 1
        rules = Rules(isolate, same_subtrees, one_provider_per_tree, trait_bits)
        summed = frozenset(class_id for class_id, count in counts.items() if count > 1)
        return cls(groups, specs, rules, root_traits, shape, summed)

    @property
    def one_provider_each(self) -> bool:
        """Every candidate is one provider (a flat deployment, one group)."""
        return self.shape.flat and len(self.groups) == 1


@dataclass(frozen=True)
class Stop:
    """Why a request matches nothing before any search (its answer is empty).

    ``reason`` is :data:`STOP_ROOT_REQUIRED` (no root has the
    ``root_required`` traits), :data:`STOP_VOID` (``groups[-1]`` is void)
    or :data:`STOP_EARLIER` (a later group names an unknown class or trait,
    and upstream answers first because one of ``groups`` matches nothing
    on its own). ``groups`` are those resolved so far.
    """

    reason: str
    root_traits: TraitIds
    #: Known once ``root_required`` passed.
    shape: Shape | None = None
    groups: tuple[ResolvedGroup, ...] = ()


STOP_ROOT_REQUIRED = "root_required"
STOP_VOID = "void"
STOP_EARLIER = "earlier"


# --- one window of trees ---------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """Tree roots with ids in ``[low, high]`` that pass the root trait filter
    (and, given ``roots``, are among them)."""

    low: int
    high: int
    root_traits: TraitIds = TraitIds()
    #: The window holds every tree of the deployment.
    whole: bool = False
    #: The only roots the window holds, ascending (see ``candidates.narrow``).
    roots: tuple[int, ...] | None = None

    @property
    def form(self) -> Window:
        """The window as far as a statement's text depends on it."""
        return Window(0, 0, self.root_traits, self.whole, None if self.roots is None else ())


class Room(NamedTuple):
    """What a provider can still take of one class: capacity left and max_unit.

    (Named tuples: the group queries make one row object per provider, and
    tuples are made several times faster than frozen dataclasses.)
    """

    left: int
    max_unit: int


#: The room of a class only one group asks for: the query checked the one
#: amount already, and no other amount is ever added to it.
UNCHECKED = Room(2**62, 2**62)


class ProviderRow(NamedTuple):
    """A provider that can serve a whole suffixed group."""

    provider: int
    root: int
    #: (class id, room) for each class of the group.
    rooms: tuple[tuple[int, Room], ...]


class ClassRow(NamedTuple):
    """A provider that can serve one class of the unsuffixed group."""

    provider: int
    root: int
    resource_class: int
    room: Room
    #: Bit i set: the provider has a trait of the group's i-th required set.
    trait_bits: int


@dataclass(frozen=True)
class Slot:
    """A slot's options in one window."""

    spec: SlotSpec
    #: Anchor root id → providers that can fill the slot there, by id.
    choices: dict[int, list[int]] = field(default_factory=dict)
    #: Providers offered through sharing (they may appear under many anchors).
    shared: set[int] = field(default_factory=set)


class Ancestry:
    """Parent links of whole trees, answering "is A an ancestor-or-self of B"."""

    def __init__(self, parents: dict[int, int | None]) -> None:
        self._parents = parents

    def _reaches(self, provider: int | None, top: int) -> bool:
        """``top`` is ``provider`` or one of its ancestors (trees are shallow)."""
        parents = self._parents
        while provider is not None and provider != top:
            provider = parents.get(provider)
        return provider is not None

    def same_subtree(self, providers: set[int]) -> bool:
        """One of ``providers`` is an ancestor-or-self of all the others."""
        return any(all(self._reaches(provider, top) for provider in providers) for top in providers)

    def related(self, one: int, other: int) -> bool:
        """``same_subtree({one, other})`` without making a set (the usual pair)."""
        return self._reaches(other, one) or self._reaches(one, other)


@dataclass(frozen=True)
class Facts:
    """What the rules need to know about the providers of one window."""

    rooms: dict[tuple[int, int], Room] = field(default_factory=dict)
    roots: dict[int, int] = field(default_factory=dict)
    trait_bits: dict[int, int] = field(default_factory=dict)
    #: Loaded only for ``same_subtree``.
    ancestry: Ancestry | None = None


@dataclass(frozen=True)
class WindowOptions:
    """Everything the search needs about one window, complete when made."""

    #: In the plan's slot order.
    slots: tuple[Slot, ...]
    facts: Facts
    #: Roots where every slot has an option, ascending.
    anchors: tuple[int, ...]


# --- the answer ------------------------------------------------------------------


class Candidate(NamedTuple):
    """One allocation request: amounts per provider and class, and who served which group."""

    #: (provider id, class id, amount), sorted.
    allocations: tuple[tuple[int, int, int], ...]
    #: (suffix, provider ids) per group, in slot order.
    mappings: tuple[tuple[str, tuple[int, ...]], ...]
    #: The tree root of each allocation's provider.
    roots: tuple[int, ...]

    @property
    def key(self) -> tuple:
        """What makes two candidates the same answer."""
        return self.allocations, self.mappings

    @property
    def trees(self) -> frozenset[int]:
        """Roots of the trees the candidate allocates from."""
        return frozenset(self.roots)


class Provider:
    """One provider of a loaded tree (plain slots: thousands are made per answer)."""

    __slots__ = ("uuid", "parent", "root", "resources", "traits")

    def __init__(self, uuid: str, parent: int | None, root: int) -> None:
        self.uuid = uuid
        self.parent = parent
        self.root = root
        #: (class name, capacity, used) per inventory, in the order read
        #: (providers of one model may share these lists: never change them)
        self.resources: list[tuple[str, int, int]] = []
        #: trait names, in trait id order (shared like ``resources``)
        self.traits: tuple[str, ...] = ()


@dataclass
class Trees:
    """Whole trees, by provider id: what the summaries show."""

    providers: dict[int, Provider] = field(default_factory=dict)

    def uuid(self, provider: int) -> str:
        return self.providers[provider].uuid
