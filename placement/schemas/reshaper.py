"""The ``POST /reshaper`` body (1.30 and later).

``inventories`` maps provider uuids to a ``PUT .../inventories`` body (at
least one provider); ``allocations`` maps consumer uuids to the entries
``POST /allocations`` takes at the same microversion (consumer generation
required, ``mappings`` from 1.34, ``consumer_type`` from 1.38) and may be
empty.
"""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import Schema, allocation, inventory


def _body(entry: Schema) -> Schema:
    return {
        "type": "object",
        "properties": {
            "inventories": {
                "type": "object",
                "patternProperties": {
                    allocation.UUID_KEY: inventory.PUT_ALL.at(mv.RESHAPER),
                },
                "minProperties": 1,
                "additionalProperties": False,
            },
            "allocations": allocation.by_consumer(entry, min_consumers=0),
        },
        "required": ["inventories", "allocations"],
        "additionalProperties": False,
    }


RESHAPE = allocation.ENTRY.map(_body)
