"""Request bodies: ``POST /v1/audits`` and the JSON-Patch documents of PATCH."""

from __future__ import annotations

from typing import Any

_UUID_REASON = "unable to convert to uuid. Error: Expected a uuid but received {value}"
_READ_ONLY = {"readOnly": True}

#: ``POST /v1/audits``. ``audit_type`` values are checked by the handler, which
#: names an unknown type in upstream's words. A ``null`` is an attribute not
#: given (placement/actionplans/audit_request.py), except where upstream
#: answers a 500 (``auto_trigger``: refused here) or refuses it (read-only ones).
AUDIT_CREATE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "audit_type": {"type": ["string", "null"]},
        "goal": {"type": ["string", "null"]},
        "strategy": {"type": ["string", "null"]},
        "audit_template_uuid": {
            "type": ["string", "null"],
            "format": "uuid",
            "invalid": _UUID_REASON,
        },
        "parameters": {"type": ["object", "null"]},
        "interval": {"type": ["string", "null"]},
        "name": {"type": ["string", "null"]},
        "auto_trigger": {"type": "boolean"},
        "start_time": {"type": ["string", "null"]},
        "end_time": {"type": ["string", "null"]},
        "force": {"type": ["boolean", "null"]},
        "state": _READ_ONLY,
        "scope": _READ_ONLY,
        "hostname": _READ_ONLY,
    },
    "required": ["audit_type"],
    "additionalProperties": False,
}


#: ``POST /v1/audit_templates``; ``default_parameters`` from 1.7 (the handler
#: answers 406 below it, as upstream).
AUDIT_TEMPLATE_CREATE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 63},
        "description": {"type": ["string", "null"], "maxLength": 255},
        "goal": {"type": "string"},
        "strategy": {"type": ["string", "null"]},
        "scope": {"type": ["array", "null"]},
        "default_parameters": {"type": ["object", "null"]},
    },
    "required": ["name", "goal"],
    "additionalProperties": False,
}

#: A JSON-Patch of add, replace and remove operations on named paths; which paths
#: and values each route allows is its own business (below).
_JSON_PATCH: dict[str, Any] = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "properties": {
            "op": {"enum": ["add", "replace", "remove"]},
            "path": {"type": "string", "pattern": r"^(/[\w-]+)+$"},
            "value": {},
        },
        "required": ["op", "path"],
        "additionalProperties": False,
    },
}


def _json_patch(paths: dict[str, Any]) -> dict[str, Any]:
    """A JSON-Patch list of ``replace`` operations on the given paths."""
    return {
        "type": "array",
        "minItems": 1,
        "items": {
            "type": "object",
            "properties": {
                "op": {"enum": ["replace"]},
                "path": {"enum": sorted(paths)},
                "value": {},
            },
            "required": ["op", "path", "value"],
            "additionalProperties": False,
            "oneOf": [
                {"properties": {"path": {"enum": [path]}, "value": value}}
                for path, value in sorted(paths.items())
            ],
        },
    }


#: ``PATCH /v1/action_plans/{uuid}``: only the state may change (cancel).
ACTION_PLAN_PATCH = _json_patch({"/state": {"type": "string"}})

#: ``PATCH /v1/actions/{uuid}`` (1.5+): skip it, optionally saying why.
ACTION_PATCH = _json_patch(
    {"/state": {"type": "string"}, "/status_message": {"type": ["string", "null"]}}
)

#: ``PATCH /v1/audit_templates/{ident}`` (which paths may change:
#: ``placement/actionplans/template_patch.py``).
AUDIT_TEMPLATE_PATCH = _JSON_PATCH

#: ``PATCH /v1/audits/{audit}``: JSON-Patch operations as upstream's type declares
#: them; which paths and values are allowed is the handler's, in upstream's words.
AUDIT_PATCH = _JSON_PATCH
