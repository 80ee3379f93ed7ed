"""Query string of ``GET /allocation_candidates``, per microversion.

The schema sees the last value of each key; the parser applies the rules
about repeated keys. Group keys are matched by pattern so that suffixed
groups (numbers from 1.25, words from 1.33) are allowed.
"""

from __future__ import annotations

import copy

_STRING = {"type": "string"}

GET_1_10 = {
    "type": "object",
    "properties": {"resources": _STRING},
    "required": ["resources"],
    "additionalProperties": False,
}


def _plus(schema: dict, **properties: dict) -> dict:
    extended = copy.deepcopy(schema)
    extended["properties"].update(properties)
    return extended


def _grouped(schema: dict, suffix: str, kinds: tuple[str, ...]) -> dict:
    """``schema`` with the group keys matched as ``<kind>(<suffix>)?``."""
    grouped = copy.deepcopy(schema)
    for kind in ("resources", "required", "member_of"):
        grouped["properties"].pop(kind, None)
    grouped.pop("required", None)
    grouped["patternProperties"] = {f"^{kind}({suffix})?$": _STRING for kind in kinds}
    return grouped


GET_1_16 = _plus(
    GET_1_10,
    limit={"type": ["integer", "string"], "pattern": "^[1-9][0-9]*$", "minimum": 1, "minLength": 1},
)
GET_1_17 = _plus(GET_1_16, required=_STRING)
GET_1_21 = _plus(GET_1_17, member_of=_STRING)
GET_1_25 = _plus(
    _grouped(GET_1_21, "[1-9][0-9]*", ("resources", "required", "member_of")),
    group_policy={"type": "string", "enum": ["none", "isolate"]},
)
GET_1_31 = _grouped(GET_1_25, "[1-9][0-9]*", ("resources", "required", "member_of", "in_tree"))
GET_1_33 = _grouped(
    GET_1_31, "[a-zA-Z0-9_-]{1,64}", ("resources", "required", "member_of", "in_tree")
)
GET_1_35 = _plus(GET_1_33, root_required=_STRING)
GET_1_36 = _plus(GET_1_35, same_subtree=_STRING)

#: (first microversion, schema), newest first.
_BY_VERSION = [
    ((1, 36), GET_1_36),
    ((1, 35), GET_1_35),
    ((1, 33), GET_1_33),
    ((1, 31), GET_1_31),
    ((1, 25), GET_1_25),
    ((1, 21), GET_1_21),
    ((1, 17), GET_1_17),
    ((1, 16), GET_1_16),
]


def query_schema(version: tuple[int, int]) -> dict:
    """The schema for microversion ``version``."""
    for since, schema in _BY_VERSION:
        if version >= since:
            return schema
    return GET_1_10
