"""Schemas for allocation bodies: ``PUT /allocations/{c}`` and ``POST /allocations``.

The body grew version by version; each schema below is the previous one plus
what that microversion added, so a reader can follow the history:

* 1.0  a list of ``{"resource_provider": {"uuid"}, "resources"}``;
* 1.8  ``project_id`` and ``user_id`` become required;
* 1.12 the dict form keyed by provider uuid (the shape ``GET`` returns);
* 1.13 ``POST /allocations``: dict forms keyed by consumer uuid, where an
  empty ``allocations`` removes the consumer's allocations;
* 1.28 ``consumer_generation`` (integer or null) is required, and
  ``PUT`` may send empty ``allocations`` too;
* 1.34 optional ``mappings`` (accepted, ignored);
* 1.38 ``consumer_type`` is required.

Clients and tests match jsonschema's messages, so the shapes (which keyword
sits where) are part of the contract.
"""

from __future__ import annotations

import copy
from typing import Any

from placement import microversion as mv

#: Provider and consumer uuids used as object keys (not normalized).
UUID_KEY = "^[0-9a-fA-F-]{36}$"
#: Resource class names used as keys.
RC_KEY = "^[A-Z0-9_]+$"
#: Names a consumer type may have.
CONSUMER_TYPE_PATTERN = "^[A-Z0-9_]+$"
#: Request group suffixes in ``mappings`` (the 1.33 syntax, unanchored).
GROUP_SUFFIX = "[a-zA-Z0-9_-]{1,64}"

_RESOURCES = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {RC_KEY: {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}

_EXTERNAL_ID = {"type": "string", "minLength": 1, "maxLength": 255}

# --- PUT, list form (1.0 - 1.11) ----------------------------------------------

PUT_V1_0: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allocations": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "resource_provider": {
                        "type": "object",
                        "properties": {"uuid": {"type": "string", "format": "uuid"}},
                        "additionalProperties": False,
                        "required": ["uuid"],
                    },
                    "resources": _RESOURCES,
                },
                "required": ["resource_provider", "resources"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["allocations"],
    "additionalProperties": False,
}

PUT_V1_8 = copy.deepcopy(PUT_V1_0)
PUT_V1_8["properties"].update(project_id=_EXTERNAL_ID, user_id=_EXTERNAL_ID)
PUT_V1_8["required"] += ["project_id", "user_id"]

# --- dict form (1.12 and later) -------------------------------------------------

PUT_V1_12: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allocations": {
            "type": "object",
            "minProperties": 1,
            "patternProperties": {
                UUID_KEY: {
                    "type": "object",
                    "properties": {
                        # What GET shows; accepted so a GET body can be sent back.
                        "generation": {"type": "integer"},
                        "resources": _RESOURCES,
                    },
                    "required": ["resources"],
                    "additionalProperties": False,
                },
            },
            "additionalProperties": False,
        },
        "project_id": _EXTERNAL_ID,
        "user_id": _EXTERNAL_ID,
    },
    "required": ["allocations", "project_id", "user_id"],
    "additionalProperties": False,
}

#: One consumer's entry where empty ``allocations`` means "remove them all".
_DELETABLE = copy.deepcopy(PUT_V1_12)
_DELETABLE["properties"]["allocations"]["minProperties"] = 0

PUT_V1_28 = copy.deepcopy(_DELETABLE)
PUT_V1_28["properties"]["consumer_generation"] = {"type": ["integer", "null"]}
PUT_V1_28["required"].append("consumer_generation")

PUT_V1_34 = copy.deepcopy(PUT_V1_28)
PUT_V1_34["properties"]["mappings"] = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {
        GROUP_SUFFIX: {
            "type": "array",
            "minItems": 1,
            "items": {"type": "string", "format": "uuid"},
        },
    },
}

PUT_V1_38 = copy.deepcopy(PUT_V1_34)
PUT_V1_38["properties"]["consumer_type"] = {
    "type": "string",
    "pattern": CONSUMER_TYPE_PATTERN,
    "minLength": 1,
    "maxLength": 255,
}
PUT_V1_38["required"].append("consumer_type")


def _by_consumer(entry: dict, min_consumers: int) -> dict:
    """An object keyed by consumer uuid whose values match ``entry``."""
    return {
        "type": "object",
        "minProperties": min_consumers,
        "additionalProperties": False,
        "patternProperties": {UUID_KEY: entry},
    }


def put_schema(version: mv.Version) -> dict:
    """The ``PUT /allocations/{consumer_uuid}`` body schema at ``version``."""
    for since, schema in (
        (mv.CONSUMER_TYPES, PUT_V1_38),
        (mv.MAPPINGS, PUT_V1_34),
        (mv.CONSUMER_GENERATION, PUT_V1_28),
        (mv.ALLOCATIONS_DICT, PUT_V1_12),
        (mv.ALLOCATION_PROJECT_USER, PUT_V1_8),
    ):
        if version >= since:
            return schema
    return PUT_V1_0


def consumer_entry_schema(version: mv.Version) -> dict:
    """One consumer's entry in ``POST /allocations`` (and the reshaper)."""
    if version >= mv.CONSUMER_GENERATION:
        return put_schema(version)
    return _DELETABLE


def by_consumer_schema(version: mv.Version, *, min_consumers: int) -> dict:
    """Consumer uuid → entry; ``min_consumers`` 1 for POST, 0 in the reshaper."""
    return _by_consumer(consumer_entry_schema(version), min_consumers)


def post_schema(version: mv.Version) -> dict:
    """The ``POST /allocations`` body schema at ``version`` (1.13 and later)."""
    return by_consumer_schema(version, min_consumers=1)
