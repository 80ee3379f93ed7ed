"""Why a request's candidates are what they are, told by the engine's own steps.

:func:`explain` resolves the request with the engine's ``resolve_plan`` and
then, instead of streaming candidates, looks at every tree of the deployment
at once (one whole window) with the engine's own steps:

1. the request may stop before any search (``model.Stop``): no root has the
   ``root_required`` traits, a group's aggregates or ``in_tree`` name
   nothing (*request* explanations), or a group that matches nothing on its
   own comes before an unknown name (that group is explained alone);
2. per group, each provider that has one of its classes but fails one of
   the group's rules (:mod:`placement.candidates.verdicts`, the same SQL
   conditions): *provider* explanations;
3. per tree, :data:`TREE_RULES` in order: the root's ``root_required``; a
   group with no option in the tree (``slots.gather``: the rows and sharing
   anchors the search uses); then the combination, searched by
   ``combine.Search`` with the request's rules added one at a time, so the
   first rule after which nothing is left is the one that removed the tree:
   *tree* explanations.

A tree *qualifies* when the search with every rule finds a candidate
anchored in it. ``limit`` and ``max_allocation_candidates`` only cut the
answer; the explanation does not read them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import and_, case, literal, select
from sqlalchemy.engine import Connection, Engine

from placement.candidates import engine as pipeline
from placement.candidates import slots, verdicts
from placement.candidates.combine import Search
from placement.candidates.model import (
    STOP_EARLIER,
    STOP_ROOT_REQUIRED,
    UNCHECKED,
    VOID_MEMBER_OF,
    Plan,
    ResolvedGroup,
    Rules,
    Shape,
    SlotSpec,
    Stop,
    TraitIds,
    WindowOptions,
)
from placement.candidates.request import CandidateRequest, RequestGroup
from placement.candidates.verdicts import Explanation
from placement.db import tables
from placement.db.transaction import reader
from placement.objects import conditions

_RP = tables.resource_providers

#: A tree's rules, in the order they are tried; the first one that leaves no
#: candidate anchored in the tree is reported. ``outside_tree``,
#: ``not_shared`` and ``no_provider`` name the first group (in the plan's
#: slot order) with no option in the tree.
TREE_RULES = (
    "root_required",
    "outside_tree",
    "not_shared",
    "no_provider",
    "capacity",
    "missing_trait",
    "one_provider_per_tree",
    "isolate",
    "same_subtree",
)

#: At most this many explanations are listed (the request's first, then the
#: trees', then the providers'); ``explanations_omitted`` counts the rest.
MAX_EXPLANATIONS = 1000

_LEVELS = {"request": 0, "tree": 1, "provider": 2}

#: (uuid, name, root id) by provider id.
Names = dict[int, tuple[str, str, int]]


def explain(engine: Engine, request: CandidateRequest) -> dict[str, Any]:
    """``explanations``, ``explanations_omitted``, ``trees`` and
    ``provider_names`` for ``request`` (names and exceptions as ``find``'s)."""
    with reader(engine) as conn:
        plan = pipeline.resolve_plan(conn, request)
        columns = (_RP.c.id, _RP.c.uuid, _RP.c.name, _RP.c.root_provider_id)
        names: Names = {row[0]: tuple(row[1:]) for row in conn.execute(select(*columns))}
        qualified: dict[int, bool] = {}
        if isinstance(plan, Stop):
            found = _stopped(conn, plan, request, qualified)
        else:
            found = _explained(conn, plan, request, request.groups, qualified)
    return _document(found, qualified, names)


def _explained(
    conn: Connection,
    plan: Plan,
    request: CandidateRequest,
    groups: tuple[RequestGroup, ...],
    qualified: dict[int, bool],
) -> list[Explanation]:
    """Provider and tree explanations of ``plan`` (whose groups are
    ``groups`` resolved); ``qualified`` gets each root's verdict."""
    by_class = not plan.shape.flat
    found: list[Explanation] = []
    for group, asked in zip(plan.groups, groups, strict=True):
        found += verdicts.explain_group(
            conn, group, asked, by_class=by_class and not group.granular
        )
    return _trees(conn, plan, request, groups, qualified) + found


def _stopped(
    conn: Connection, stop: Stop, request: CandidateRequest, qualified: dict[int, bool]
) -> list[Explanation]:
    """Why a request that stops before any search matches nothing."""
    if stop.reason == STOP_ROOT_REQUIRED:
        return [_root_required(root, request) for root, _ in _roots(conn, stop.root_traits)]
    assert stop.shape is not None
    if stop.reason == STOP_EARLIER:
        return _stopped_earlier(conn, stop, stop.shape, request)
    return [_void(stop, request)]


def _stopped_earlier(
    conn: Connection, stop: Stop, shape: Shape, request: CandidateRequest
) -> list[Explanation]:
    """Each group that matches nothing on its own, explained alone: the names
    of the groups after it were never looked up."""
    found = []
    for group, asked in zip(stop.groups, request.groups, strict=False):
        alone: dict[int, bool] = {}
        plan = Plan.of((group,), shape, stop.root_traits)
        explained = _explained(conn, plan, request, (asked,), alone)
        if not any(alone.values()):
            found.append(
                Explanation(
                    "request",
                    "no_provider",
                    f"{_label(asked.suffix)} matches nothing on its own, so the names "
                    "of the groups after it are never looked up",
                    asked.suffix,
                )
            )
            found += explained
    return found


def _void(stop: Stop, request: CandidateRequest) -> Explanation:
    """The last group's member_of or in_tree names nothing."""
    void = stop.groups[-1]
    asked = next(group for group in request.groups if group.suffix == void.suffix)
    if void.void == VOID_MEMBER_OF:
        member_of = [sorted(any_of) for any_of in asked.aggregates.member_of]
        return Explanation(
            "request",
            "not_in_aggregate",
            f"no provider is in an aggregate of each member_of{asked.suffix} set",
            asked.suffix,
            numbers={"member_of": member_of},
        )
    return Explanation(
        "request",
        "outside_tree",
        f"no provider has the in_tree{asked.suffix} uuid {asked.in_tree}",
        asked.suffix,
        numbers={"in_tree": asked.in_tree},
    )


# --- trees ---------------------------------------------------------------------


def _trees(
    conn: Connection,
    plan: Plan,
    request: CandidateRequest,
    groups: tuple[RequestGroup, ...],
    qualified: dict[int, bool],
) -> list[Explanation]:
    window = next(pipeline.windows(plan, windowed=False), None)
    if window is None:
        return []
    shared = [slots.sharing_rows(conn, group, plan) for group in plan.groups]
    options = slots.gather(conn, _by_class(plan), window, shared, partial=True)
    assert options is not None
    stages = _stages(plan.specs, plan.rules)
    anchors = set(options.anchors)
    found: list[Explanation] = []
    for root, allowed in _roots(conn, plan.root_traits):
        rule = None
        if not allowed:
            found.append(_root_required(root, request))
        elif root not in anchors:
            found.append(_missing(root, plan, groups, options, shared))
        else:
            rule = _removed_by(root, options, stages)
            if rule is not None:
                found.append(_combination(rule, root, plan, request, groups, options))
        qualified[root] = qualified.get(root, False) or (
            allowed and root in anchors and rule is None
        )
    return found


def _roots(conn: Connection, root_traits: TraitIds) -> list[tuple[int, bool]]:
    """Every root id, and whether it has the ``root_required`` traits."""
    allowed = conditions.has_traits(_RP.c.id, root_traits)
    column = case((and_(*allowed), 1), else_=0) if allowed else literal(1)
    statement = (
        select(_RP.c.id, column).where(_RP.c.parent_provider_id.is_(None)).order_by(_RP.c.id)
    )
    return [(root, bool(ok)) for root, ok in conn.execute(statement)]


def _by_class(plan: Plan) -> Plan:
    """``plan`` gathered class by class even on a flat deployment.

    The engine's flat shortcut keeps only providers serving the whole
    unsuffixed group, so a tree short of one class would have no option for
    any: the explanation could not say which class does not fit.
    """
    if not plan.shape.flat:
        return plan
    return replace(plan, shape=replace(plan.shape, nested=True))


def _stages(specs: tuple, rules: Rules) -> list[tuple[str, Search]]:
    """A search per combination rule the request has, each with the rules
    before it; the last one has them all (it is the engine's search)."""
    current = Rules()
    stages = [("capacity", Search(specs, current))]
    for rule, added in (
        ("missing_trait", {"trait_bits": rules.trait_bits}),
        ("one_provider_per_tree", {"one_provider_per_tree": rules.one_provider_per_tree}),
        ("isolate", {"isolate": rules.isolate}),
        ("same_subtree", {"same_subtrees": rules.same_subtrees}),
    ):
        more = replace(current, **added)
        if more != current:
            current = more
            stages.append((rule, Search(specs, current)))
    assert current == rules
    return stages


def _removed_by(root: int, options: WindowOptions, stages: list[tuple[str, Search]]) -> str | None:
    """The first rule after which no candidate is anchored at ``root``."""
    if _some(stages[-1][1], root, options):
        return None
    return next(rule for rule, search in stages if not _some(search, root, options))


def _some(search: Search, root: int, options: WindowOptions) -> bool:
    return next(search.candidates(root, options, set()), None) is not None


def _root_required(root: int, request: CandidateRequest) -> Explanation:
    required = [sorted(any_of) for any_of in request.root_traits.required]
    forbidden = sorted(request.root_traits.forbidden)
    return Explanation(
        "tree",
        "root_required",
        "the root lacks a root_required trait or has a forbidden one",
        None,
        root,
        numbers={"required": required, "forbidden": forbidden},
    )


def _missing(
    root: int,
    plan: Plan,
    groups: tuple[RequestGroup, ...],
    options: WindowOptions,
    shared: list[list],
) -> Explanation:
    """The first group with a slot with no option in the tree, and why; for
    the unsuffixed group, every class no provider there serves is named."""
    spec = next(slot.spec for slot in options.slots if root not in slot.choices)
    where = next(i for i, group in enumerate(plan.groups) if group.suffix == spec.suffix)
    group, asked = plan.groups[where], groups[where]
    what, class_name = _what_is_missing(root, spec, group, asked, options)
    if group.tree is not None and group.tree != root:
        return Explanation(
            "tree",
            "outside_tree",
            f"{what} must come from the tree of {asked.in_tree}",
            asked.suffix,
            root,
            class_name,
            {"in_tree": asked.in_tree},
        )
    sharing = _sharing_providers(spec, shared[where])
    if sharing:
        return Explanation(
            "tree",
            "not_shared",
            f"no provider of the tree can serve {what}; the sharing providers that can "
            "are in no aggregate with it",
            asked.suffix,
            root,
            class_name,
            {"sharing_providers": sharing},
        )
    return Explanation(
        "tree",
        "no_provider",
        f"no provider of the tree, nor a sharing provider, can serve {what}",
        asked.suffix,
        root,
        class_name,
    )


def _what_is_missing(
    root: int, spec: SlotSpec, group: ResolvedGroup, asked: RequestGroup, options: WindowOptions
) -> tuple[str, str | None]:
    """The group's label, with the unsuffixed group's classes that have no
    option in the tree; and the first of those classes."""
    what = _label(asked.suffix)
    if spec.granular:
        return what, None
    names = dict(zip((c for c, _ in group.amounts), asked.resources, strict=True))
    missing = [
        names[slot.spec.amounts[0][0]]
        for slot in options.slots
        if not slot.spec.granular and root not in slot.choices
    ]
    return what + f" ({', '.join(missing)})", missing[0]


def _sharing_providers(spec: SlotSpec, rows: list) -> list[int]:
    """The sharing providers (of any aggregate) that could serve ``spec``."""
    return sorted(
        {row.provider for row in rows if spec.granular or row.resource_class == spec.amounts[0][0]}
    )


def _combination(
    rule: str,
    root: int,
    plan: Plan,
    request: CandidateRequest,
    groups: tuple[RequestGroup, ...],
    options: WindowOptions,
) -> Explanation:
    """A tree every group has options in, removed by a rule of the combination."""
    if rule == "capacity":
        return _over_capacity(root, plan, groups, options)
    if rule == "missing_trait":
        return _missing_trait(root, groups)
    if rule == "one_provider_per_tree":
        return Explanation(
            "tree",
            rule,
            "before microversion 1.29 a tree gives one provider per candidate, and no "
            "single provider here serves every group",
            None,
            root,
        )
    if rule == "isolate":
        return _not_isolated(root, groups)
    return _not_same_subtree(root, request)


def _missing_trait(root: int, groups: tuple[RequestGroup, ...]) -> Explanation:
    """The unsuffixed group's required traits, on no choice of the tree's providers."""
    unsuffixed = next(asked for asked in groups if not asked.suffix)
    required = [sorted(any_of) for any_of in unsuffixed.traits.required]
    return Explanation(
        "tree",
        "missing_trait",
        "no choice of the tree's providers for the unsuffixed group has a trait "
        "of each required set",
        "",
        root,
        numbers={"required": required},
    )


def _not_isolated(root: int, groups: tuple[RequestGroup, ...]) -> Explanation:
    """group_policy=isolate, which no choice of the tree's providers meets."""
    suffixes = [asked.suffix for asked in groups if asked.suffix]
    return Explanation(
        "tree",
        "isolate",
        "group_policy=isolate: the suffixed groups need distinct providers, and the "
        "tree has no such choice",
        None,
        root,
        numbers={"groups": suffixes},
    )


def _not_same_subtree(root: int, request: CandidateRequest) -> Explanation:
    """The same_subtree sets, which no choice of the tree's providers meets."""
    same = [sorted(suffixes) for suffixes in request.same_subtrees]
    return Explanation(
        "tree",
        "same_subtree",
        "no choice of providers puts each same_subtree set of groups under one of them",
        None,
        root,
        numbers={"same_subtree": same},
    )


def _over_capacity(
    root: int, plan: Plan, groups: tuple[RequestGroup, ...], options: WindowOptions
) -> Explanation:
    """The capacity rule, with the two sides of the comparison that failed: the
    amounts asked of the classes several groups ask (only those add up on one
    provider), and what each of the tree's candidate providers has free."""
    class_names = {
        class_id: name
        for group, asked in zip(plan.groups, groups, strict=True)
        for (class_id, _), name in zip(group.amounts, asked.resources, strict=True)
    }
    return Explanation(
        "tree",
        "capacity",
        "every group has a provider here, but the amounts of the groups that land on "
        "one provider exceed its free capacity or max_unit",
        None,
        root,
        numbers={
            "requested": _summed_requests(plan, options, class_names),
            "free_by_provider": _free_by_provider(root, options, class_names),
        },
    )


def _summed_requests(
    plan: Plan, options: WindowOptions, class_names: dict[int, str]
) -> dict[str, int]:
    """The total asked of each summed class, by class name, over every slot."""
    requested: dict[str, int] = {}
    for slot in options.slots:
        for class_id, amount in slot.spec.amounts:
            if class_id in plan.summed:
                name = class_names[class_id]
                requested[name] = requested.get(name, 0) + amount
    return requested


def _free_by_provider(
    root: int, options: WindowOptions, class_names: dict[int, str]
) -> dict[int, dict[str, int]]:
    """What each of the tree's choices can take at most of each class its
    slot asks (the lesser of capacity left and max_unit), where it was read."""
    free: dict[int, dict[str, int]] = {}
    for slot in options.slots:
        for provider in slot.choices[root]:
            for class_id, _ in slot.spec.amounts:
                room = options.facts.rooms.get((provider, class_id), UNCHECKED)
                if room is not UNCHECKED:
                    free.setdefault(provider, {})[class_names[class_id]] = min(
                        room.left, room.max_unit
                    )
    return free


def _label(suffix: str) -> str:
    return f"group {suffix}" if suffix else "the unsuffixed group"


# --- the document --------------------------------------------------------------


def _document(found: list[Explanation], qualified: dict[int, bool], names: Names) -> dict:
    ordered = sorted(found, key=lambda e: _LEVELS[e.level])
    kept = ordered[:MAX_EXPLANATIONS]
    roots = sorted(p for p, (_, _, root) in names.items() if p == root)
    return {
        "explanations": [_rendered(e, names) for e in kept],
        "explanations_omitted": len(ordered) - len(kept),
        "trees": [
            {"uuid": uuid, "name": name, "qualifies": qualified.get(root, False)}
            for root in roots
            for uuid, name, _ in [names[root]]
        ],
        "provider_names": {uuid: name for uuid, name, _ in names.values()},
    }


def _rendered(explanation: Explanation, names: Names) -> dict[str, Any]:
    numbers = dict(explanation.numbers)
    if "sharing_providers" in numbers:
        numbers["sharing_providers"] = [names[p][0] for p in numbers["sharing_providers"]]
    if "free_by_provider" in numbers:
        numbers["free_by_provider"] = {
            names[p][0]: rooms for p, rooms in numbers["free_by_provider"].items()
        }
    body: dict[str, Any] = {
        "level": explanation.level,
        "rule": explanation.rule,
        "group": explanation.group,
        "resource_class": explanation.resource_class,
        "uuid": None,
        "name": None,
        "root_uuid": None,
        "root_name": None,
        "detail": explanation.detail,
        "numbers": numbers,
    }
    if explanation.provider is not None:
        uuid, name, root = names[explanation.provider]
        body.update(uuid=uuid, name=name, root_uuid=names[root][0], root_name=names[root][1])
    return body
