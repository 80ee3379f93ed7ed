"""Bodies of PUT /resource_providers/{uuid}/aggregates, and the answers of both methods."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import INTEGER, Schema, Versioned, closed, obj


def _with_generation(uuids: Schema) -> Schema:
    """1.19: the list moves into an object beside the provider generation the client saw."""
    return obj(
        {"aggregates": uuids, "resource_provider_generation": {"type": "integer"}},
        "aggregates",
        "resource_provider_generation",
    )


#: ``PUT .../aggregates``: a bare list of aggregate uuids (1.1 - 1.18), then the object.
PUT_AGGREGATES = Versioned(
    {"type": "array", "items": {"type": "string", "format": "uuid"}, "uniqueItems": True},
    (mv.AGGREGATES_GENERATION, _with_generation),
)

_UUIDS = {"type": "array", "items": {"type": "string"}}

#: ``GET`` and ``PUT .../aggregates``: the uuids, and from 1.19 the provider generation.
AGGREGATES = Versioned(
    closed(aggregates=_UUIDS),
    (
        mv.AGGREGATES_GENERATION,
        lambda schema: closed(**schema["properties"], resource_provider_generation=INTEGER),
    ),
)
