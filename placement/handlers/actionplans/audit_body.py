"""The rules of ``POST /v1/audits`` beyond the schema, in upstream's order and words.

The body becomes one :class:`~placement.actionplans.audit_request.AuditRequest`
here, at the door: a ``null`` attribute is one not given (as upstream's types
read it), then upstream's refusals run on what is given. A ONESHOT audit is
planned in the request; CONTINUOUS and EVENT audits are stored for the audit
runner (doc/watcher-api.md §3.8). An ``interval`` must be seconds or a cron
expression (upstream answers a bad cron with a 500, we with a 400) and times
ISO 8601, the end not before the start. A template uuid is passed on for
``placement/objects/actionplans/from_template.py`` to resolve.
"""

from __future__ import annotations

from typing import Any

from placement import errors
from placement import microversion as mv
from placement.actionplans import audit_types, schedule
from placement.actionplans.audit_request import AuditRequest, given


def audit_request(body: dict[str, Any], version: mv.Version) -> AuditRequest:
    """The request a schema-valid body makes, or the 4xx refusing it."""
    attributes = given(body)
    _refuse_invalid(attributes, version)
    _refuse_unservable(attributes)
    return AuditRequest.from_body({**attributes, **_schedule(attributes)})


def _schedule(attributes: dict[str, Any]) -> dict[str, Any]:
    """The interval and the time window, checked (the types' own rules came first)."""
    interval = attributes.get("interval")
    start = schedule.parse_time("start_time", attributes.get("start_time"))
    end = schedule.parse_time("end_time", attributes.get("end_time"))
    schedule.check_window(start, end)
    return {
        "interval": None if interval is None else schedule.check_interval(interval),
        "start_time": start,
        "end_time": end,
    }


def _is_timed(attributes: dict[str, Any]) -> bool:
    return "start_time" in attributes or "end_time" in attributes


def _refuse_invalid(attributes: dict[str, Any], version: mv.Version) -> None:
    """What upstream refuses of any audit: an unknown type, times before their
    microversion, and neither or both of a goal and a template."""
    audit_type = attributes.get("audit_type")
    if audit_type not in audit_types.ALL:
        raise errors.BadRequest(f"Audit type {audit_type} could not be found")
    if _is_timed(attributes) and version < mv.AUDIT_START_END_TIME:
        raise errors.NotAcceptable("Request not acceptable.")
    has_goal, has_template = "goal" in attributes, "audit_template_uuid" in attributes
    if not has_goal and not has_template:
        raise errors.BadRequest("A valid goal or audit_template_id must be provided")
    if has_goal and has_template:
        raise errors.BadRequest("Either audit_template_uuid or goal should be provided.")


def _refuse_unservable(attributes: dict[str, Any]) -> None:
    """The settings upstream refuses for each type, checked after :func:`_refuse_invalid`."""
    audit_type, interval = attributes["audit_type"], attributes.get("interval")
    if audit_type == audit_types.ONESHOT and interval is not None:
        raise errors.BadRequest("Interval of audit must not be set for ONESHOT.")
    if audit_type == audit_types.CONTINUOUS and interval is None:
        raise errors.BadRequest("Interval of audit must be specified for CONTINUOUS.")
    if audit_type == audit_types.ONESHOT and _is_timed(attributes):
        raise errors.BadRequest("Start or End time of audit must not be set for ONESHOT.")
