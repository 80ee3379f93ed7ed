"""What a PATCH of an audit changes, decided from the audit as read (doc/watcher-api.md §3.5).

Upstream applies any value without checking it; here a change is checked as
POST checks it (an interval of seconds or cron, times, the window, parameters
against the strategy's spec), so a PATCH cannot store an audit the runner
cannot run. Changing the interval of a CONTINUOUS audit reschedules it from
now; changing its window makes it due, so the runner looks at the new window
at once. Pure: the caller reads the audit, passes ``now`` and writes the
returned column values with a compare-and-swap on the state it saw.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from placement.actionplans import schedule, states
from placement.actionplans.audit_types import CONTINUOUS
from placement.actionplans.errors import PatchRefused
from placement.actionplans.parameters import apply_strategy_parameters

#: Longer names are cut, as on POST.
NAME_LENGTH = 63
#: Attributes a PATCH may change.
CHANGEABLE = frozenset(
    {"state", "interval", "start_time", "end_time", "name", "parameters", "auto_trigger", "force"}
)


@dataclass(frozen=True)
class Current:
    """What the decision needs of the audit as read."""

    audit_type: str
    state: str
    interval: str | None
    start_time: datetime.datetime | None
    end_time: datetime.datetime | None
    parameters_spec: Mapping[str, Any]


def decide(current: Current, changes: Mapping[str, Any], now: datetime.datetime) -> dict:
    """The audit's new column values for ``changes`` (attribute -> value, None for a
    removal), or the typed error refusing them."""
    values: dict[str, Any] = {}
    if "state" in changes:
        values["state"] = states.check_audit_transition(current.state, changes["state"])
    if "name" in changes:
        values["name"] = _name(changes["name"])
    if "parameters" in changes:
        given = changes["parameters"] or {}
        if not isinstance(given, dict):
            raise PatchRefused("parameters must be an object")
        values["parameters"] = apply_strategy_parameters(current.parameters_spec, given)
    values.update(_flags(changes))
    values.update(_schedule(current, changes, now))
    return values


#: What a null (or removed) flag becomes: ``force`` its default, as upstream stores
#: it; upstream answers a null ``auto_trigger`` with a 500, so it stays refused.
_FLAGS_WHEN_NULL: dict[str, bool | None] = {"auto_trigger": None, "force": False}


def _flags(changes: Mapping[str, Any]) -> dict[str, bool]:
    """The boolean columns ``changes`` sets, each true or false."""
    values = {}
    for flag, when_null in _FLAGS_WHEN_NULL.items():
        if flag in changes:
            value = when_null if changes[flag] is None else changes[flag]
            if not isinstance(value, bool):
                raise PatchRefused(f"{flag} must be true or false")
            values[flag] = value
    return values


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise PatchRefused("name must be a non-empty string")
    return value[:NAME_LENGTH]


def _schedule(current: Current, changes: Mapping[str, Any], now: datetime.datetime) -> dict:
    """The interval and window columns, and ``next_run_time`` when they move it."""
    values: dict[str, Any] = {}
    if "interval" in changes:
        interval = changes["interval"]
        if interval is None and current.audit_type == CONTINUOUS:
            raise PatchRefused("Interval of audit must be specified for CONTINUOUS.")
        values["interval"] = None if interval is None else schedule.check_interval(interval)
    for field in ("start_time", "end_time"):
        if field in changes:
            values[field] = schedule.parse_time(field, changes[field])
    schedule.check_window(
        values.get("start_time", current.start_time), values.get("end_time", current.end_time)
    )
    if current.audit_type == CONTINUOUS:
        if values.get("interval") not in (None, current.interval):
            values["next_run_time"] = schedule.next_run(values["interval"], now)
        elif "start_time" in values or "end_time" in values:
            values["next_run_time"] = None  # due: the runner looks at the new window
    return values
