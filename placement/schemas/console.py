"""Query strings and answers of the console's JSON routes (``/console/api/…``).

They are no Placement API and do not change with the microversion: each is
one schema, the same at every version.
"""

from __future__ import annotations

from placement.schemas import INTEGER, Versioned, closed, mapping, obj

#: Trees per page unless ``limit`` says otherwise (1 to 500).
DEFAULT_LIMIT = 50

CAPACITY_QUERY = Versioned(
    obj(
        {
            "name": {"type": "string", "maxLength": 200},
            "required": {"type": "string", "minLength": 1},
            "member_of": {"type": "string", "minLength": 1},
            "resource_class": {"type": "string", "minLength": 1, "maxLength": 255},
            "sort": {"type": "string", "enum": ["name", "fullest"]},
            # 1 to 500, as digits.
            "limit": {"type": "string", "pattern": "^([1-9][0-9]?|[1-4][0-9][0-9]|500)$"},
            "offset": {"type": "string", "pattern": "^[0-9]{1,9}$"},
        }
    )
)

_TEXT = {"type": "string"}
_NAMES = {"type": "array", "items": _TEXT}
_NUMBER = {"type": "number"}

#: ``GET /console/api/capacity``: a page of trees, each provider with its
#: inventories and what is used of them, and the cloud's totals per class.
CAPACITY = Versioned(
    closed(
        provider_count=INTEGER,
        tree_count=INTEGER,
        limit=INTEGER,
        offset=INTEGER,
        totals=mapping(closed(capacity=INTEGER, used=INTEGER)),
        trees={
            "type": "array",
            "items": closed(
                providers={
                    "type": "array",
                    "items": closed(
                        uuid=_TEXT,
                        name=_TEXT,
                        generation=INTEGER,
                        parent_uuid={"type": ["string", "null"]},
                        matched={"type": "boolean"},
                        resources=mapping(
                            closed(
                                total=INTEGER,
                                reserved=INTEGER,
                                allocation_ratio=_NUMBER,
                                capacity=INTEGER,
                                used=INTEGER,
                            )
                        ),
                        traits=_NAMES,
                        aggregates=_NAMES,
                        depth=INTEGER,
                    ),
                },
                fullness=_NUMBER,
            ),
        },
    )
)
