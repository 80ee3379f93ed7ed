"""Query string of GET /usages."""

from __future__ import annotations

import copy
from typing import Any

_ID = {"type": "string", "minLength": 1, "maxLength": 255}

USAGES_QUERY: dict[str, Any] = {
    "type": "object",
    "properties": {"project_id": _ID, "user_id": _ID},
    "required": ["project_id"],
    "additionalProperties": False,
}

#: 1.38: filter (and group) by consumer type. ``^all`` is unanchored upstream.
USAGES_QUERY_1_38 = copy.deepcopy(USAGES_QUERY)
USAGES_QUERY_1_38["properties"]["consumer_type"] = {
    "type": "string",
    "pattern": "^[A-Z0-9_]+$|^all|^unknown$",
    "minLength": 1,
    "maxLength": 255,
}
