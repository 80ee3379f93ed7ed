"""When a recurring audit runs: its ``interval`` (seconds or cron) and its time window.

Pure functions of the values and of ``now`` (naive UTC, the database's
convention), so the runner's clock is whatever its caller passes: tests move
it without waiting. An ``interval`` is a string, as upstream stores it: a
whole number of seconds (``"600"``), or a cron expression of 5 to 7 fields
parsed by croniter as upstream Watcher does; a cron run is due at the next
time the expression names after ``now`` (a five-field expression names whole
minutes, so its runs land on the minute).
"""

from __future__ import annotations

import datetime
from typing import Any

from croniter import croniter

from placement.actionplans.errors import (
    EndBeforeStart,
    InvalidInterval,
    InvalidSeconds,
    InvalidTime,
)

#: The field counts croniter accepts: minute..weekday, plus seconds, plus year.
CRON_FIELDS = (5, 6, 7)


def seconds_of(interval: str) -> int | None:
    """The interval in seconds when it is a whole number (signs allowed), else None."""
    text = interval.strip()
    digits = text[1:] if text[:1] in "+-" else text
    return int(text) if digits.isdigit() else None


def check_interval(value: Any) -> str:
    """``value`` as stored, if it is a positive number of seconds or a valid cron."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInterval(value, "an interval is a number of seconds or a cron expression")
    seconds = seconds_of(value)
    if seconds is not None:
        if seconds <= 0:
            raise InvalidSeconds(value, "")
        return value
    if len(value.split()) not in CRON_FIELDS:
        raise InvalidInterval(value, f"exactly 5, 6 or 7 fields must be given: {value}")
    try:
        croniter(value, datetime.datetime(2000, 1, 1))
    except (ValueError, KeyError) as exc:  # croniter's errors are ValueErrors
        raise InvalidInterval(value, str(exc) or type(exc).__name__) from None
    return value


def next_run(interval: str, now: datetime.datetime) -> datetime.datetime:
    """When an audit run at ``now`` with ``interval`` is due again."""
    seconds = seconds_of(interval)
    if seconds is not None:
        return now + datetime.timedelta(seconds=seconds)
    following: datetime.datetime = croniter(interval, now).get_next(datetime.datetime)
    return following


def parse_time(field: str, value: Any) -> datetime.datetime | None:
    """An ISO 8601 date and time as naive UTC (None stays None).

    An offset is converted to UTC; a time without one is taken as UTC
    (upstream takes it as the API host's local time, which on a server is UTC).
    A space may separate the date and the time, as upstream accepts.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidTime(field, value)
    try:
        parsed = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidTime(field, value) from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return parsed


def check_window(start: datetime.datetime | None, end: datetime.datetime | None) -> None:
    """Refuse an end before the start (either may be open)."""
    if start is not None and end is not None and end < start:
        raise EndBeforeStart(start.isoformat(), end.isoformat())


def before_window(start: datetime.datetime | None, now: datetime.datetime) -> bool:
    """Runs before ``start_time`` are skipped."""
    return start is not None and now < start


def after_window(end: datetime.datetime | None, now: datetime.datetime) -> bool:
    """After ``end_time`` a recurring audit is over (SUCCEEDED)."""
    return end is not None and now > end
