"""Response bodies of Watcher's ``/v1`` API, per infra-optim version.

Each object is a list item (``short``) or a show and ``/detail`` item
(``whole``), with exactly the keys ``handlers/actionplans/render.py`` writes.
Values are typed where the type is fixed (:data:`_TYPES`, links, times);
the others hold what the stored plan or catalog holds and are left open.
"""

from __future__ import annotations

from typing import Any

from placement import microversion as mv
from placement.schemas import Schema, Versioned, adding, changed

_ANY: Schema = {}
_TEXT = {"type": "string"}
_TIME = {"type": ["string", "null"]}
_LINKS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"href": _TEXT, "rel": _TEXT},
        "required": ["href", "rel"],
        "additionalProperties": False,
    },
}
_TIMES = {"created_at": _TIME, "updated_at": _TIME, "deleted_at": _TIME}


def _closed(**properties: Schema) -> Schema:
    """An object with every one of ``properties`` and no other."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


#: The type of each value whose type is fixed; the others are left open.
_TYPES: dict[str, Schema] = {
    "uuid": _TEXT,
    "name": _TEXT,
    "display_name": _TEXT,
    "efficacy_specification": {"type": "array"},
    "goal_uuid": _TEXT,
    "goal_name": _TEXT,
    "strategy_uuid": {"type": ["string", "null"]},
    "strategy_name": {"type": ["string", "null"]},
    "parameters_spec": {"type": "object"},
    "audit_type": _TEXT,
    "state": _TEXT,
    "interval": {"type": ["string", "null"]},
    "scope": {"type": "array"},
    "auto_trigger": {"type": "boolean"},
    "parameters": {"type": "object"},
    "hostname": {"type": ["string", "null"]},
    "audit_uuid": _TEXT,
    "efficacy_indicators": {"type": "array"},
    "global_efficacy": {"type": "array"},
    "action_plan_uuid": _TEXT,
    "action_type": _TEXT,
    "parents": {"type": "array", "items": _TEXT},
    "description": {"type": ["string", "null"]},
    "input_parameters": {"type": "object"},
}


def _keys(*names: str) -> dict[str, Schema]:
    """Properties with their types where :data:`_TYPES` fixes them."""
    return {name: _TYPES.get(name, _ANY) for name in names}


def _status_message(schema: Schema) -> Schema:
    """1.5: whole audits, plans and actions say why they are in their state."""
    schema = adding(status_message=_TIME)(schema)
    schema["required"].append("status_message")
    return schema


def _items(short: Schema, whole: Schema, *changes: Any) -> tuple[Versioned, Versioned]:
    return Versioned(short), Versioned(whole, *changes)


_GOAL = _closed(**_keys("uuid", "name", "display_name", "efficacy_specification"), links=_LINKS)
GOAL = _items(_GOAL, changed(_GOAL, lambda s: _closed(**s["properties"], **_TIMES)))

_STRATEGY = _closed(**_keys("uuid", "name", "display_name", "goal_uuid", "goal_name"), links=_LINKS)
STRATEGY = _items(
    _STRATEGY, changed(_STRATEGY, lambda s: _closed(**s["properties"], **_keys("parameters_spec")))
)

_AUDIT_SHORT = _closed(
    **_keys("uuid", "name", "audit_type", "state", "goal_uuid", "goal_name"),
    **_keys("strategy_uuid", "strategy_name"),
    links=_LINKS,
    **_keys("interval", "scope", "auto_trigger"),
    next_run_time=_TIME,
    force={"type": "boolean"},
)
_AUDIT_WHOLE = _closed(**_AUDIT_SHORT["properties"], **_keys("parameters", "hostname"), **_TIMES)
AUDIT = _items(
    _AUDIT_SHORT,
    _AUDIT_WHOLE,
    (
        mv.AUDIT_START_END_TIME,
        lambda s: _closed(**s["properties"], start_time=_TIME, end_time=_TIME),
    ),
    (mv.STATUS_MESSAGE, _status_message),
)

_PLAN_SHORT = _closed(
    **_keys("uuid", "audit_uuid", "strategy_uuid", "strategy_name", "state"),
    **_keys("efficacy_indicators", "global_efficacy"),
    links=_LINKS,
    updated_at=_TIME,
)
ACTION_PLAN = _items(
    _PLAN_SHORT,
    _closed(**{**_PLAN_SHORT["properties"], **_keys("hostname"), **_TIMES}),
    (mv.STATUS_MESSAGE, _status_message),
)

_ACTION_SHORT = _closed(
    **_keys("uuid", "action_plan_uuid", "action_type", "state", "parents"), links=_LINKS
)
ACTION = _items(
    _ACTION_SHORT,
    _closed(**_ACTION_SHORT["properties"], **_keys("description", "input_parameters"), **_TIMES),
    (mv.STATUS_MESSAGE, _status_message),
)


_TEMPLATE_SHORT = _closed(
    **_keys("uuid", "name", "goal_uuid", "goal_name", "strategy_uuid", "strategy_name"),
    **_keys("scope"),
    links=_LINKS,
)
AUDIT_TEMPLATE = _items(
    _TEMPLATE_SHORT,
    _closed(**_TEMPLATE_SHORT["properties"], **_keys("description"), **_TIMES),
    (
        mv.TEMPLATE_DEFAULT_PARAMETERS,
        lambda s: _closed(**s["properties"], default_parameters={"type": ["object", "null"]}),
    ),
)

_SCORING_ENGINE = _closed(**_keys("uuid", "name", "description"), links=_LINKS)
SCORING_ENGINE = _items(
    _SCORING_ENGINE,
    _closed(**_SCORING_ENGINE["properties"], metainfo={"type": ["string", "null"]}),
)

_SERVICE = _closed(
    id={"type": "integer"},
    name=_TEXT,
    host=_TEXT,
    status={"enum": ["ACTIVE", "FAILED"]},
    links=_LINKS,
)
SERVICE = _items(_SERVICE, _closed(**_SERVICE["properties"], last_seen_up=_TIME, **_TIMES))

#: ``GET /v1/strategies/{strategy}/state``: upstream's list of requirement rows.
STRATEGY_STATE = Versioned(
    {
        "type": "array",
        "items": _closed(type=_TEXT, state=_ANY, mandatory=_ANY, comment=_TEXT),
    }
)

#: ``GET /v1/data_model``: one row per server (node fields and server fields), or per
#: node without servers (node fields only).
DATA_MODEL = Versioned(
    {
        "type": "object",
        "properties": {"context": {"type": "array", "items": {"type": "object"}}},
        "required": ["context"],
        "additionalProperties": False,
    }
)


def page(key: str, item: Versioned) -> Versioned:
    """A list answer: ``{key: [item, ...]}`` and ``next`` when the page is full."""
    return item.map(
        lambda schema: {
            "type": "object",
            "properties": {key: {"type": "array", "items": schema}, "next": _TEXT},
            "required": [key],
            "additionalProperties": False,
        }
    )
