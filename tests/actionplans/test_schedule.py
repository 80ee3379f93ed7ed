"""A recurring audit's interval (seconds or cron) and window: placement/actionplans/schedule.py."""

from __future__ import annotations

import datetime

import pytest

from placement.actionplans import schedule
from placement.actionplans.errors import EndBeforeStart, InvalidInterval, InvalidTime

T = datetime.datetime


@pytest.mark.parametrize("value", ["600", "1", "*/5 * * * *", "0 0 * * 1-5", "0 */2 * * * 30"])
def test_good_intervals_are_kept(value):
    assert schedule.check_interval(value) == value


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("0", "positive number of seconds"),
        ("-60", "positive number of seconds"),
        ("* * *", "exactly 5, 6 or 7 fields"),
        ("* * * * * * * *", "exactly 5, 6 or 7 fields"),
        ("61 * * * *", "Provided cron is invalid"),
        ("every day", "Provided cron is invalid"),
        ("", "Provided cron is invalid"),
        (60, "Provided cron is invalid"),
    ],
)
def test_bad_intervals_are_refused(value, words):
    with pytest.raises(InvalidInterval, match=words):
        schedule.check_interval(value)


def test_seconds_count_from_now():
    assert schedule.next_run("90", T(2030, 1, 1, 10, 0, 7)) == T(2030, 1, 1, 10, 1, 37)


@pytest.mark.parametrize(
    ("cron", "now", "due"),
    [
        ("*/5 * * * *", T(2030, 1, 1, 10, 2, 33, 123), T(2030, 1, 1, 10, 5)),
        ("* * * * *", T(2030, 1, 1, 10, 2, 59, 999999), T(2030, 1, 1, 10, 3)),
        ("0 * * * *", T(2030, 1, 1, 10, 0), T(2030, 1, 1, 11, 0)),
        ("30 2 * * *", T(2030, 12, 31, 3, 0), T(2031, 1, 1, 2, 30)),
    ],
)
def test_cron_runs_land_on_the_minute(cron, now, due):
    following = schedule.next_run(cron, now)
    assert following == due
    assert following.second == 0 and following.microsecond == 0


def test_times_become_naive_utc():
    assert schedule.parse_time("t", "2030-01-01T10:00:00+02:00") == T(2030, 1, 1, 8)
    assert schedule.parse_time("t", "2030-01-01 10:00:00") == T(2030, 1, 1, 10)
    assert schedule.parse_time("t", "2030-01-01T10:00:00Z") == T(2030, 1, 1, 10)
    assert schedule.parse_time("t", None) is None


@pytest.mark.parametrize("value", ["soon", "2030-13-01T00:00:00", 5])
def test_bad_times_are_refused(value):
    with pytest.raises(InvalidTime, match="end_time"):
        schedule.parse_time("end_time", value)


def test_the_window():
    schedule.check_window(T(2030, 1, 1), T(2030, 1, 1))
    schedule.check_window(None, T(2030, 1, 1))
    with pytest.raises(EndBeforeStart):
        schedule.check_window(T(2030, 1, 2), T(2030, 1, 1))
    assert schedule.before_window(T(2030, 1, 2), T(2030, 1, 1))
    assert not schedule.before_window(None, T(2030, 1, 1))
    assert schedule.after_window(T(2030, 1, 1), T(2030, 1, 2))
    assert not schedule.after_window(T(2030, 1, 1), T(2030, 1, 1))
