"""The rules of ``POST /v1/audits`` beyond the schema, in upstream's order and words.

Only ONESHOT audits are created here: audits run in the request, and nothing
would ever run a CONTINUOUS or EVENT audit again, so those are refused with a
400 rather than stored to sit PENDING forever. A template uuid is passed on for
``placement/objects/actionplans/from_template.py`` to resolve.
"""

from __future__ import annotations

from typing import Any

from placement import errors
from placement import microversion as mv

AUDIT_TYPES = ("ONESHOT", "CONTINUOUS", "EVENT")

#: Body attributes handed on to the object layer as they are.
_PASSED_ON = (
    "goal",
    "strategy",
    "name",
    "parameters",
    "auto_trigger",
    "force",
    "audit_template_uuid",
)


def audit_fields(body: dict[str, Any], version: mv.Version) -> dict[str, Any]:
    """The object layer's ``fields`` for a schema-valid body, or the 4xx refusing it."""
    _refuse_invalid(body, version)
    _refuse_unservable(body)
    return {"audit_type": body["audit_type"], **{k: body[k] for k in _PASSED_ON if k in body}}


def _is_timed(body: dict[str, Any]) -> bool:
    return body.get("start_time") is not None or body.get("end_time") is not None


def _has_template(body: dict[str, Any]) -> bool:
    return body.get("audit_template_uuid") is not None


def _refuse_invalid(body: dict[str, Any], version: mv.Version) -> None:
    """What upstream refuses of any audit: an unknown type, times before their
    microversion, and neither or both of a goal and a template."""
    audit_type = body["audit_type"]
    if audit_type not in AUDIT_TYPES:
        raise errors.BadRequest(f"Audit type {audit_type} could not be found")
    if _is_timed(body) and version < mv.AUDIT_START_END_TIME:
        raise errors.NotAcceptable("Request not acceptable.")
    has_template = _has_template(body)
    if "goal" not in body and not has_template:
        raise errors.BadRequest("A valid goal or audit_template_id must be provided")
    if "goal" in body and has_template:
        raise errors.BadRequest("Either audit_template_uuid or goal should be provided.")


def _refuse_unservable(body: dict[str, Any]) -> None:
    """What this service cannot create, checked after :func:`_refuse_invalid`:
    any audit but a ONESHOT one (module docstring) and the settings upstream
    refuses for ONESHOT."""
    audit_type = body["audit_type"]
    if audit_type != "ONESHOT":
        raise errors.BadRequest(
            f"Audit type {audit_type} is not supported by this service: "
            "only ONESHOT audits can be created"
        )
    if body.get("interval") is not None:
        raise errors.BadRequest("Interval of audit must not be set for ONESHOT.")
    if _is_timed(body):
        raise errors.BadRequest("Start or End time of audit must not be set for ONESHOT.")
