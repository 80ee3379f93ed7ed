"""Schemas for trait names, provider trait bodies, the trait list query, and answers."""

from __future__ import annotations

from placement.schemas import INTEGER, Versioned, closed, obj

#: Names users may give traits.
CUSTOM_NAME_PATTERN = "^CUSTOM_[A-Z0-9_]+$"

#: Any trait name a client may send.
NAME = {"type": "string", "minLength": 1, "maxLength": 255}

#: The name of a trait created with ``PUT /traits/{name}`` (a path, not a body).
CUSTOM_NAME = {**NAME, "pattern": CUSTOM_NAME_PATTERN}

#: ``PUT /resource_providers/{uuid}/traits``.
SET_PROVIDER_TRAITS = Versioned(
    obj(
        {
            "traits": {"type": "array", "items": NAME},
            "resource_provider_generation": {"type": "integer"},
        },
        "traits",
        "resource_provider_generation",
    )
)

#: ``GET /traits`` query (values are parsed by the handler).
LIST_QUERY = Versioned(obj({"name": {"type": "string"}, "associated": {"type": "string"}}))

_NAMES = {"type": "array", "items": {"type": "string"}}

#: ``GET /traits``.
LIST_RESPONSE = Versioned(closed(traits=_NAMES))

#: A provider's traits (``GET`` and ``PUT /resource_providers/{uuid}/traits``).
PROVIDER_TRAITS = Versioned(closed(traits=_NAMES, resource_provider_generation=INTEGER))
