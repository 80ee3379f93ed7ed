"""The list queries: paging arguments plus each collection's filters.

Query values are strings; any argument not listed is refused.
"""

from __future__ import annotations

from typing import Any

_UUID = {
    "type": "string",
    "format": "uuid",
    "invalid": "unable to convert to uuid. Error: Expected a uuid but received {value}",
}
_TEXT = {"type": "string"}
_LIMIT = {
    "type": "string",
    "pattern": r"^\s*[-+]?[0-9]+\s*$",
    "invalid": "unable to convert to int. Error: invalid literal for int() with base 10: '{value}'",
}


def _list_query(marker: dict[str, Any], **filters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "limit": _LIMIT,
            "marker": marker,
            "sort_key": _TEXT,
            "sort_dir": _TEXT,
            **filters,
        },
        "additionalProperties": False,
    }


#: Goals and strategies page on a uuid, but an unknown marker is a 404 there.
GOALS = _list_query(_TEXT)
STRATEGIES = _list_query(_TEXT, goal=_TEXT)
AUDITS = _list_query(_UUID, goal=_TEXT, strategy=_TEXT)
ACTION_PLANS = _list_query(_UUID, audit_uuid=_UUID, strategy=_TEXT)
ACTIONS = _list_query(_UUID, action_plan_uuid=_UUID, audit_uuid=_UUID)
AUDIT_TEMPLATES = _list_query(_UUID, goal=_TEXT, strategy=_TEXT)
SCORING_ENGINES = _list_query(_TEXT)
#: Services have no uuid: their marker is the integer id of the last one shown.
SERVICES = _list_query(_LIMIT)
#: ``GET /v1/data_model`` (1.3): which model, and the audit whose scope applies.
DATA_MODEL: dict[str, Any] = {
    "type": "object",
    "properties": {"data_model_type": _TEXT, "audit_uuid": _UUID},
    "additionalProperties": False,
}

#: Filters of each collection, in the order ``next`` links repeat them.
FILTERS: dict[str, tuple[str, ...]] = {
    "goals": (),
    "strategies": ("goal",),
    "audits": ("goal", "strategy"),
    "action_plans": ("audit_uuid", "strategy"),
    "actions": ("action_plan_uuid", "audit_uuid"),
    "audit_templates": ("goal", "strategy"),
    "scoring_engines": (),
    "services": (),
}
