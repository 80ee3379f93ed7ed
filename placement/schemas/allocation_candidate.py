"""Query string of ``GET /allocation_candidates``, per microversion.

The schema sees the last value of each key; the parser applies the rules
about repeated keys. Group keys are matched by pattern so that suffixed
groups (numbers from 1.25, words from 1.33) are allowed.
"""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import Change, Schema, Versioned, adding

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
