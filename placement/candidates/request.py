"""Parse the query string of ``GET /allocation_candidates`` into request groups.

Pure: no database. The handler has already validated the query against the
microversion's JSON schema (last value of each key); this module applies the
rest of upstream's rules, in upstream's order, so the first error a client
gets is the one upstream would give:

1. request-wide parameters (``limit``, ``group_policy``, ``root_required``,
   ``same_subtree``);
2. every group key in query order (``resources<S>``, ``required<S>``,
   ``member_of<S>``, ``in_tree<S>``);
3. consistency of the groups (orphans before 1.36, resourceless groups and
   ``same_subtree`` suffixes from 1.36);
4. traits both required and forbidden in one group (1.22 on);
5. ``group_policy`` present when more than one suffixed group exists.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from oslo_utils import uuidutils

from placement import errors, filters
from placement import microversion as mv

#: Group suffixes: numbers from 1.25, any short word from 1.33.
NUMERIC_SUFFIX = r"[1-9][0-9]*"
STRING_SUFFIX = r"[a-zA-Z0-9_-]{1,64}"

_GROUP_KEYS = "resources|required|member_of|in_tree"
_KEY_NUMERIC = re.compile(rf"^({_GROUP_KEYS})({NUMERIC_SUFFIX})?$")
_KEY_STRING = re.compile(rf"^({_GROUP_KEYS})({STRING_SUFFIX})?$")
_LIMIT = re.compile(r"^[1-9][0-9]*$")


@dataclass(frozen=True)
class RequestGroup:
    """What one provider (suffixed group) or one tree (``""``) must offer."""

    suffix: str
    resources: dict[str, int]
    traits: filters.TraitFilter
    aggregates: filters.AggregateFilter
    in_tree: str | None = None

    @property
    def granular(self) -> bool:
        """Suffixed groups are served by exactly one provider."""
        return self.suffix != ""


@dataclass(frozen=True)
class CandidateRequest:
    """Everything a ``GET /allocation_candidates`` asks for."""

    groups: tuple[RequestGroup, ...]
    version: mv.Version = mv.MAX_VERSION
    limit: int | None = None
    isolate: bool = False
    root_traits: filters.TraitFilter = filters.TraitFilter()
    same_subtrees: tuple[frozenset[str], ...] = ()

    @property
    def nested_aware(self) -> bool:
        """From 1.29 one tree may serve the unsuffixed group with several providers."""
        return self.version >= mv.NESTED_CANDIDATES

    @property
    def requested_classes(self) -> set[str]:
        return {rc for group in self.groups for rc in group.resources}


@dataclass
class _Draft:
    """A group while its keys are being read."""

    resources: dict[str, int] | None = None
    traits: filters.TraitFilter = filters.TraitFilter()
    aggregates: filters.AggregateFilter = filters.AggregateFilter()
    in_tree: str | None = None


def parse(pairs: Sequence[tuple[str, str]], version: mv.Version) -> CandidateRequest:
    """The request in ``pairs`` (every ``key=value`` of the query, in order)."""
    values: dict[str, list[str]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    limit = _limit(values.get("limit"))
    policies = values.get("group_policy")
    root_traits = _root_required(values.get("root_required"))
    same_subtrees = _same_subtrees(values.get("same_subtree", []))
    drafts = _read_groups(pairs, values, version)
    if version >= mv.SAME_SUBTREE:
        _check_resourceless(drafts, same_subtrees)
    else:
        _check_orphans(drafts)
    if version >= mv.FORBIDDEN_TRAITS:
        _check_conflicts(drafts)
    if not policies and sum(1 for suffix in drafts if suffix) > 1:
        raise errors.BadRequest(
            'The "group_policy" parameter is required when specifying '
            'more than one "resources{N}" parameter.'
        )
    groups = tuple(
        RequestGroup(suffix, draft.resources or {}, draft.traits, draft.aggregates, draft.in_tree)
        for suffix, draft in drafts.items()
    )
    return CandidateRequest(
        groups=groups,
        version=version,
        limit=limit,
        isolate=policies is not None and policies[0] == "isolate",
        root_traits=root_traits,
        same_subtrees=tuple(same_subtrees),
    )


# --- request-wide parameters ---------------------------------------------------


def _limit(values: list[str] | None) -> int | None:
    """The first ``limit`` counts (the schema checked only the last one)."""
    if not values:
        return None
    if not _LIMIT.match(values[0]):
        raise errors.BadRequest(
            f"Invalid query string parameters: '{values[0]}' does not match '{_LIMIT.pattern}'"
        )
    # More digits than Python converts (4,300 unless set otherwise): upstream answers 500.
    most_digits = sys.get_int_max_str_digits()
    if most_digits and len(values[0]) > most_digits:
        raise errors.BadRequest(
            f"Invalid query string parameters: limit has more than {most_digits} digits"
        )
    # No list is longer than Python's largest index: a larger limit is no limit.
    return min(int(values[0]), sys.maxsize)


def _root_required(values: list[str] | None) -> filters.TraitFilter:
    """``root_required`` keeps the syntax ``required`` had in 1.35 (no ``in:``)."""
    if not values:
        return filters.TraitFilter()
    if len(values) > 1:
        raise errors.BadRequest(
            "Query parameter 'root_required' may be specified only once.",
            code=errors.QUERY_DUPLICATE_KEY,
        )
    traits = filters.parse_required(values, mv.ROOT_REQUIRED)
    conflicts = sorted({name for any_of in traits.required for name in any_of} & traits.forbidden)
    if conflicts:
        raise errors.BadRequest(
            "Conflicting required and forbidden traits found in "
            f"root_required: {', '.join(conflicts)}",
            code=errors.QUERY_BAD_VALUE,
        )
    return traits


def _same_subtrees(values: list[str]) -> list[frozenset[str]]:
    subtrees = []
    for value in values:
        suffixes = frozenset(part.strip() for part in value.split(","))
        if "" in suffixes:
            raise errors.BadRequest(
                "Empty string (unsuffixed group) can not be specified in `same_subtree` ",
                code=errors.QUERY_BAD_VALUE,
            )
        subtrees.append(suffixes)
    return subtrees


# --- groups --------------------------------------------------------------------


def _read_groups(
    pairs: Sequence[tuple[str, str]], values: dict[str, list[str]], version: mv.Version
) -> dict[str, _Draft]:
    """Groups by suffix, in the order their first key appears."""
    pattern = _KEY_STRING if version >= mv.STRING_SUFFIXES else _KEY_NUMERIC
    drafts: dict[str, _Draft] = {}
    for key, value in pairs:
        match = pattern.match(key)
        if not match:
            continue
        kind, suffix = match.group(1), match.group(2) or ""
        draft = drafts.setdefault(suffix, _Draft())
        if kind == "resources":
            draft.resources = filters.parse_resources(value)
        elif kind == "required":
            draft.traits = filters.parse_required(values[key], version)
        elif kind == "member_of":
            draft.aggregates = filters.parse_member_of(values[key], version, suffix)
        else:
            draft.in_tree = _in_tree(value)
    return drafts


def _in_tree(value: str) -> str:
    uuid = value.strip()
    if not uuidutils.is_uuid_like(uuid):
        raise errors.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' "
            f"parameter to be a format of uuid. Got: {value}"
        )
    return uuid


def _check_orphans(drafts: dict[str, _Draft]) -> None:
    """Before 1.36 every group needs resources, and there must be a group."""
    orphans = [
        f"required{suffix}"
        for suffix, draft in drafts.items()
        if draft.traits.required and not draft.resources
    ]
    if orphans:
        raise errors.BadRequest(
            "All traits parameters must be associated with resources.  "
            "Found the following orphaned traits keys: " + ", ".join(orphans)
        )
    orphans = [
        f"member_of{suffix}"
        for suffix, draft in drafts.items()
        if not draft.resources and (draft.aggregates.member_of or draft.aggregates.forbidden)
    ]
    if orphans:
        raise errors.BadRequest(
            "All member_of parameters must be associated with resources. "
            "Found the following orphaned member_of keys: " + ", ".join(orphans)
        )
    if not all(draft.resources for draft in drafts.values()):
        raise errors.BadRequest("All request groups must specify resources.")
    if not drafts:
        raise errors.BadRequest(
            "At least one request group (`resources` or `resources{$S}`) is required."
        )


def _check_resourceless(drafts: dict[str, _Draft], same_subtrees: list[frozenset[str]]) -> None:
    """From 1.36 a group may lack resources if ``same_subtree`` names it."""
    resourceless = [suffix for suffix, draft in drafts.items() if not draft.resources]
    if len(resourceless) == len(drafts):
        raise errors.BadRequest(
            "There must be at least one resources or resources[$S] parameter.",
            code=errors.QUERY_MISSING_VALUE,
        )
    named = set().union(*same_subtrees)
    unnamed = [suffix for suffix in resourceless if suffix not in named]
    if unnamed:
        raise errors.BadRequest(
            "Resourceless suffixed group request should be specified in "
            f"`same_subtree` query param: bad group(s) - {unnamed}.",
            code=errors.QUERY_BAD_VALUE,
        )
    unknown = sorted(suffix for suffix in named if suffix not in drafts)
    if unknown:
        raise errors.BadRequest(
            "Real suffixes should be specified in `same_subtree`: "
            f"{unknown} not found in {list(drafts)}.",
            code=errors.QUERY_BAD_VALUE,
        )


def _check_conflicts(drafts: dict[str, _Draft]) -> None:
    """A required trait (or a whole ``in:`` set) may not also be forbidden."""
    conflicts = sorted(
        f"required{suffix}: ({', '.join(sorted(any_of))})"
        for suffix, draft in drafts.items()
        for any_of in draft.traits.required
        if any_of <= draft.traits.forbidden
    )
    if conflicts:
        raise errors.BadRequest(
            "Conflicting required and forbidden traits found in the "
            "following traits keys: " + ", ".join(conflicts)
        )
