"""Schemas for trait names, provider trait bodies and the trait list query."""

#: Names users may give traits.
CUSTOM_NAME_PATTERN = "^CUSTOM_[A-Z0-9_]+$"

#: Any trait name a client may send.
NAME = {"type": "string", "minLength": 1, "maxLength": 255}

#: The name of a trait created with ``PUT /traits/{name}``.
CUSTOM_NAME = {**NAME, "pattern": CUSTOM_NAME_PATTERN}

#: ``PUT /resource_providers/{uuid}/traits``.
SET_PROVIDER_TRAITS = {
    "type": "object",
    "properties": {
        "traits": {"type": "array", "items": NAME},
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["traits", "resource_provider_generation"],
    "additionalProperties": False,
}

#: ``GET /traits`` query (values are parsed by the handler).
LIST_QUERY = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "associated": {"type": "string"},
    },
    "additionalProperties": False,
}
