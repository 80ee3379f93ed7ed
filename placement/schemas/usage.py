"""Query string of GET /usages, and the answers of both usage routes."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import INTEGER, Versioned, adding, closed, mapping, obj

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

#: ``GET /resource_providers/{uuid}/usages``: amounts by class.
PROVIDER_USAGES = Versioned(closed(resource_provider_generation=INTEGER, usages=mapping(INTEGER)))

#: ``GET /usages``: amounts by class; from 1.38 by consumer type, each with
#: its ``consumer_count`` beside the classes.
USAGES = Versioned(
    closed(usages=mapping(INTEGER)),
    (mv.CONSUMER_TYPES, lambda _: closed(usages=mapping(mapping(INTEGER)))),
)
