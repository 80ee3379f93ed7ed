"""Bodies and query strings of the resource provider routes, per microversion."""

from __future__ import annotations

import copy
from typing import Any

_UUID = {"type": "string", "format": "uuid"}
_NAME = {"type": "string", "maxLength": 200}
_PARENT = {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}

POST_PROVIDER: dict[str, Any] = {
    "type": "object",
    "properties": {"name": _NAME, "uuid": _UUID},
    "required": ["name"],
    "additionalProperties": False,
}

#: 1.14: a provider may be created under a parent.
POST_PROVIDER_1_14 = copy.deepcopy(POST_PROVIDER)
POST_PROVIDER_1_14["properties"]["parent_provider_uuid"] = _PARENT

PUT_PROVIDER: dict[str, Any] = {
    "type": "object",
    "properties": {"name": _NAME},
    "required": ["name"],
    "additionalProperties": False,
}

PUT_PROVIDER_1_14 = copy.deepcopy(PUT_PROVIDER)
PUT_PROVIDER_1_14["properties"]["parent_provider_uuid"] = _PARENT

# GET /resource_providers: each microversion adds one filter.
LIST_QUERY = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "uuid": _UUID},
    "additionalProperties": False,
}


def _plus(schema: dict, name: str, prop: dict) -> dict:
    extended = copy.deepcopy(schema)
    extended["properties"][name] = prop
    return extended


LIST_QUERY_1_3 = _plus(LIST_QUERY, "member_of", {"type": "string"})
LIST_QUERY_1_4 = _plus(LIST_QUERY_1_3, "resources", {"type": "string"})
LIST_QUERY_1_14 = _plus(LIST_QUERY_1_4, "in_tree", _UUID)
LIST_QUERY_1_18 = _plus(LIST_QUERY_1_14, "required", {"type": "string"})
