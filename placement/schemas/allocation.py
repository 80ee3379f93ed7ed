"""Schemas for allocation bodies (``PUT /allocations/{c}``, ``POST /allocations``) and answers.

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

from placement import microversion as mv
from placement.schemas import (
    INTEGER,
    Schema,
    Versioned,
    adding,
    changed,
    closed,
    mapping,
    requiring,
)

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

#: 1.0 - 1.11: the list form.
_LIST_FORM: Schema = {
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


def _dict_form(schema: Schema) -> Schema:
    """1.12: ``allocations`` keyed by provider uuid, the shape ``GET`` returns."""
    schema["properties"]["allocations"] = {
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
    }
    # Upstream's 1.12 schema lists "required" last, so a body that both lacks
    # and adds keys fails on the added key first.
    schema["required"] = schema.pop("required")
    return schema


def _may_be_empty(schema: Schema) -> Schema:
    """Empty ``allocations`` are allowed: they remove the consumer's allocations."""
    schema["properties"]["allocations"]["minProperties"] = 0
    return schema


#: What 1.28, 1.34 and 1.38 changed in a consumer's entry, wherever it is sent.
_ENTRY_CHANGES = (
    (
        mv.CONSUMER_GENERATION,
        # "additionalProperties" does nothing here; upstream has it, and
        # error texts print the schema.
        requiring(consumer_generation={"type": ["integer", "null"], "additionalProperties": False}),
    ),
    (
        mv.MAPPINGS,
        adding(
            mappings={
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
        ),
    ),
    (
        mv.CONSUMER_TYPES,
        requiring(
            consumer_type={
                "type": "string",
                "pattern": CONSUMER_TYPE_PATTERN,
                "minLength": 1,
                "maxLength": 255,
            }
        ),
    ),
)

#: ``PUT /allocations/{consumer_uuid}``.
PUT = Versioned(
    _LIST_FORM,
    (mv.ALLOCATION_PROJECT_USER, requiring(project_id=_EXTERNAL_ID, user_id=_EXTERNAL_ID)),
    (mv.ALLOCATIONS_DICT, _dict_form),
    (mv.CONSUMER_GENERATION, _may_be_empty),
    *_ENTRY_CHANGES,
)

#: One consumer's entry in ``POST /allocations`` (1.13) and in the reshaper:
#: the 1.12 ``PUT`` body whose ``allocations`` may be empty from the start.
ENTRY = Versioned(changed(PUT.at(mv.ALLOCATIONS_DICT), _may_be_empty), *_ENTRY_CHANGES)


def by_consumer(entry: Schema, min_consumers: int) -> Schema:
    """An object keyed by consumer uuid whose values match ``entry``."""
    return {
        "type": "object",
        "minProperties": min_consumers,
        "additionalProperties": False,
        "patternProperties": {UUID_KEY: entry},
    }


#: ``POST /allocations`` (1.13 and later): at least one consumer.
POST = ENTRY.map(lambda entry: by_consumer(entry, 1))

# --- answers -------------------------------------------------------------------

_AMOUNTS = mapping(INTEGER)
_OPTIONAL_TEXT = {"type": ["string", "null"]}


def _with_optional(schema: Schema, **properties: Schema) -> Schema:
    """``schema`` allowing ``properties`` (a consumer with no allocations has none)."""
    schema["properties"].update(properties)
    return schema


#: ``GET /allocations/{consumer_uuid}``: each provider's share; from 1.12 the
#: owner, 1.28 the consumer generation, 1.38 its type (none of them for a
#: consumer with no allocations).
CONSUMER_ALLOCATIONS = Versioned(
    closed(allocations=mapping(closed(resources=_AMOUNTS, generation=INTEGER))),
    (
        mv.ALLOCATIONS_DICT,
        lambda s: _with_optional(s, project_id={"type": "string"}, user_id={"type": "string"}),
    ),
    (mv.CONSUMER_GENERATION, lambda s: _with_optional(s, consumer_generation=INTEGER)),
    (mv.CONSUMER_TYPES, lambda s: _with_optional(s, consumer_type=_OPTIONAL_TEXT)),
)

#: ``GET /resource_providers/{uuid}/allocations``: each consumer's amounts,
#: with its generation from 1.28.
PROVIDER_ALLOCATIONS = Versioned(
    closed(allocations=mapping(closed(resources=_AMOUNTS)), resource_provider_generation=INTEGER),
    (
        mv.CONSUMER_GENERATION,
        lambda s: closed(
            allocations=mapping(closed(resources=_AMOUNTS, consumer_generation=INTEGER)),
            resource_provider_generation=INTEGER,
        ),
    ),
)
