"""Query string and answer of ``GET /allocation_candidates``, per microversion.

The schema sees the last value of each key; the parser applies the rules
about repeated keys. Group keys are matched by pattern so that suffixed
groups (numbers from 1.25, words from 1.33) are allowed.
"""

from __future__ import annotations

from collections.abc import Callable

from placement import microversion as mv
from placement.schemas import INTEGER, Change, Schema, Versioned, adding, closed, mapping

_STRING = {"type": "string"}
#: The same, as upstream states it for some keys (error texts print the schema).
_STRINGS = {"type": ["string"]}
_NUMBERED = "[1-9][0-9]*"


def _grouped(suffix: str, kinds: tuple[str, ...]) -> Change:
    """The change matching the group keys as ``<kind>(<suffix>)?``."""

    def change(schema: Schema) -> Schema:
        for kind in ("resources", "required", "member_of"):
            schema["properties"].pop(kind, None)
        schema.pop("required", None)
        schema["patternProperties"] = {f"^{kind}({suffix})?$": _STRING for kind in kinds}
        return schema

    return change


QUERY = Versioned(
    {
        "type": "object",
        "properties": {"resources": _STRING},
        "required": ["resources"],
        "additionalProperties": False,
    },
    (
        mv.CANDIDATES_LIMIT,
        adding(
            limit={
                "type": ["integer", "string"],
                "pattern": "^[1-9][0-9]*$",
                "minimum": 1,
                "minLength": 1,
            }
        ),
    ),
    (mv.CANDIDATES_TRAITS, adding(required=_STRINGS)),
    (mv.CANDIDATES_MEMBER_OF, adding(member_of=_STRINGS)),
    (mv.GRANULAR_GROUPS, _grouped(_NUMBERED, ("resources", "required", "member_of"))),
    (mv.GRANULAR_GROUPS, adding(group_policy={"type": "string", "enum": ["none", "isolate"]})),
    (
        mv.CANDIDATES_IN_TREE,
        _grouped(_NUMBERED, ("resources", "required", "member_of", "in_tree")),
    ),
    (
        mv.STRING_SUFFIXES,
        _grouped("[a-zA-Z0-9_-]{1,64}", ("resources", "required", "member_of", "in_tree")),
    ),
    (mv.ROOT_REQUIRED, adding(root_required=_STRINGS)),
    (mv.SAME_SUBTREE, adding(same_subtree=_STRINGS)),
)

# --- the answer -----------------------------------------------------------------

_AMOUNTS = mapping(INTEGER)
_UUID_TEXT = {"type": "string"}


def _list_requests(summary: Schema) -> Schema:
    """1.10: each request is a ``PUT /allocations`` body of that era."""
    share = closed(resource_provider=closed(uuid=_UUID_TEXT), resources=_AMOUNTS)
    request = closed(allocations={"type": "array", "items": share})
    return closed(
        allocation_requests={"type": "array", "items": request},
        provider_summaries=mapping(summary),
    )


def _inside(*keys: str) -> Callable[[Change], Change]:
    """A change of the part of the answer found under ``keys``."""

    def changing(change: Change) -> Change:
        def apply(schema: Schema) -> Schema:
            parent = schema
            for key in keys[:-1]:
                parent = parent[key]
            parent[keys[-1]] = change(parent[keys[-1]])
            return schema

        return apply

    return changing


#: Changes of one allocation request, and of one provider summary.
_requests = _inside("properties", "allocation_requests", "items")
_summaries = _inside("properties", "provider_summaries", "additionalProperties")


def _also(**properties: Schema) -> Change:
    return lambda schema: closed(**schema["properties"], **properties)


#: ``GET /allocation_candidates``, per microversion (see ``candidates/output.py``).
RESPONSE = Versioned(
    _list_requests(closed(resources=mapping(closed(capacity=INTEGER, used=INTEGER)))),
    (
        mv.ALLOCATIONS_DICT,
        _requests(lambda _: closed(allocations=mapping(closed(resources=_AMOUNTS)))),
    ),
    (mv.CANDIDATES_TRAITS, _summaries(_also(traits={"type": "array", "items": _UUID_TEXT}))),
    (
        mv.NESTED_CANDIDATES,
        _summaries(
            _also(parent_provider_uuid={"type": ["string", "null"]}, root_provider_uuid=_UUID_TEXT)
        ),
    ),
    (
        mv.MAPPINGS,
        _requests(_also(mappings=mapping({"type": "array", "items": _UUID_TEXT}))),
    ),
)

_TEXT_OR_NULL = {"type": ["string", "null"]}

#: ``GET /diagnostics/allocation_candidates``: the candidates at the
#: request's microversion and the explanation (``candidates/explain.py``).
DIAGNOSTICS = RESPONSE.map(
    lambda candidates: closed(
        **candidates["properties"],
        explanations={
            "type": "array",
            "items": closed(
                level={"enum": ["request", "tree", "provider"]},
                rule={"type": "string"},
                group=_TEXT_OR_NULL,
                resource_class=_TEXT_OR_NULL,
                uuid=_TEXT_OR_NULL,
                name=_TEXT_OR_NULL,
                root_uuid=_TEXT_OR_NULL,
                root_name=_TEXT_OR_NULL,
                detail={"type": "string"},
                numbers={"type": "object"},
            ),
        },
        explanations_omitted=INTEGER,
        trees={
            "type": "array",
            "items": closed(
                uuid=_UUID_TEXT, name={"type": "string"}, qualifies={"type": "boolean"}
            ),
        },
        provider_names=mapping({"type": "string"}),
    )
)
