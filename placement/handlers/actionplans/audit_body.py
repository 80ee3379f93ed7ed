"""The rules of ``POST /v1/audits`` beyond the schema, in upstream's order and words.

A ONESHOT audit is planned in the request; CONTINUOUS and EVENT audits are
stored for the audit runner (doc/watcher-api.md §3.8). An ``interval`` must be
seconds or a cron expression (upstream answers a bad cron with a 500, we with a
400) and times ISO 8601, the end not before the start. A template uuid is passed
on for ``placement/objects/actionplans/from_template.py`` to resolve.
"""

from __future__ import annotations

from typing import Any

from placement import errors
from placement import microversion as mv
from placement.actionplans import schedule

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
    fields = {"audit_type": body["audit_type"], **{k: body[k] for k in _PASSED_ON if k in body}}
    return {**fields, **_schedule(body)}


def _schedule(body: dict[str, Any]) -> dict[str, Any]:
    """The interval and the time window, checked (the types' own rules came first)."""
    interval = body.get("interval")
    start = schedule.parse_time("start_time", body.get("start_time"))
    end = schedule.parse_time("end_time", body.get("end_time"))
    schedule.check_window(start, end)
    return {
        "interval": None if interval is None else schedule.check_interval(interval),
        "start_time": start,
        "end_time": end,
    }


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
    """The settings upstream refuses for each type, checked after :func:`_refuse_invalid`."""
    audit_type = body["audit_type"]
    if audit_type == "ONESHOT" and body.get("interval") is not None:
        raise errors.BadRequest("Interval of audit must not be set for ONESHOT.")
    if audit_type == "CONTINUOUS" and body.get("interval") is None:
        raise errors.BadRequest("Interval of audit must be specified for CONTINUOUS.")
    if audit_type == "ONESHOT" and _is_timed(body):
        raise errors.BadRequest("Start or End time of audit must not be set for ONESHOT.")
