"""Query strings of the console's JSON routes (``/console/api/…``).

They are no Placement API and do not change with the microversion: each is
one schema, the same at every version.
"""

from __future__ import annotations

from placement.schemas import Versioned, obj

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
