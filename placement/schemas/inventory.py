"""Bodies and answers of the inventory routes (the same at every microversion)."""

from __future__ import annotations

from typing import Any

from placement.schemas import Versioned, adding, changed, closed, mapping, requiring

MAX_INT = 2147483647
#: Largest single-precision float: ``allocation_ratio`` is a FLOAT column on MySQL.
SQL_SP_FLOAT_MAX = 3.40282e38
RESOURCE_CLASS_PATTERN = "^[A-Z0-9_]+$"
_GENERATION = {"type": "integer"}


def _int(minimum: int) -> dict:
    return {"type": "integer", "maximum": MAX_INT, "minimum": minimum}


#: One inventory record. ``resource_provider_generation`` is allowed in every
#: record (and required by PUT of one class).
RECORD: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resource_provider_generation": _GENERATION,
        "total": _int(1),
        "reserved": _int(0),
        "min_unit": _int(1),
        "max_unit": _int(1),
        "step_size": _int(1),
        "allocation_ratio": {"type": "number", "maximum": SQL_SP_FLOAT_MAX},
    },
    "required": ["total"],
    "additionalProperties": False,
}

#: PUT /resource_providers/{uuid}/inventories/{rc}
PUT_ONE = Versioned(changed(RECORD, requiring(resource_provider_generation=_GENERATION)))

#: POST /resource_providers/{uuid}/inventories
POST_ONE = Versioned(
    changed(RECORD, requiring(resource_class={"type": "string", "pattern": RESOURCE_CLASS_PATTERN}))
)

#: PUT /resource_providers/{uuid}/inventories (the whole set). Keys that do
#: not look like class names pass the schema and fail as unknown classes.
PUT_ALL = Versioned(
    {
        "type": "object",
        "properties": {
            "resource_provider_generation": _GENERATION,
            "inventories": {
                "type": "object",
                "patternProperties": {RESOURCE_CLASS_PATTERN: RECORD},
            },
        },
        "required": ["resource_provider_generation", "inventories"],
        "additionalProperties": False,
    }
)

#: A record as answers show it: the six fields, defaults filled in.
_SHOWN_RECORD = closed(
    total=_GENERATION,
    reserved=_GENERATION,
    min_unit=_GENERATION,
    max_unit=_GENERATION,
    step_size=_GENERATION,
    allocation_ratio={"type": "number"},
)

#: ``GET`` and ``PUT .../inventories``: every class's record.
INVENTORIES = Versioned(
    closed(inventories=mapping(_SHOWN_RECORD), resource_provider_generation=_GENERATION)
)

#: One class's record (``GET``, ``PUT .../inventories/{rc}``, ``POST .../inventories``),
#: with the provider generation unless it is 0, as upstream.
INVENTORY = Versioned(changed(_SHOWN_RECORD, adding(resource_provider_generation=_GENERATION)))
