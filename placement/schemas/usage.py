"""Query string of GET /usages."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import Versioned, adding, obj

_ID = {"type": "string", "minLength": 1, "maxLength": 255}

USAGES_QUERY = Versioned(
    obj({"project_id": _ID, "user_id": _ID}, "project_id"),
    # 1.38: filter (and group) by consumer type. ``^all`` is unanchored upstream.
    (
        mv.CONSUMER_TYPES,
        adding(
            consumer_type={
                "type": "string",
                "pattern": "^[A-Z0-9_]+$|^all|^unknown$",
                "minLength": 1,
                "maxLength": 255,
            }
        ),
    ),
)
