"""What a PATCH changes of an audit: placement/actionplans/audit_changes.py."""

from __future__ import annotations

import datetime

import pytest

from placement.actionplans import audit_changes
from placement.actionplans.errors import (
    EndBeforeStart,
    InvalidAuditParameters,
    InvalidInterval,
    InvalidState,
    PatchRefused,
    StateTransitionNotAllowed,
)

NOW = datetime.datetime(2030, 1, 1, 10, 2, 33)
SPEC = {"properties": {"para1": {"type": "number", "default": 3.2}}}


def current(**changed):
    fields = {
        "audit_type": "CONTINUOUS",
        "state": "ONGOING",
        "interval": "60",
        "start_time": None,
        "end_time": None,
        "parameters_spec": SPEC,
    }
    return audit_changes.Current(**{**fields, **changed})


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("ONGOING", "SUSPENDED"),
        ("SUSPENDED", "ONGOING"),
        ("ONGOING", "CANCELLED"),
        ("PENDING", "CANCELLED"),
    ],
)
def test_upstream_transitions(old, new):
    assert audit_changes.decide(current(state=old), {"state": new}, NOW) == {"state": new}


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("PENDING", "SUSPENDED", StateTransitionNotAllowed),
        ("CANCELLED", "ONGOING", StateTransitionNotAllowed),
        ("SUSPENDED", "CANCELLED", StateTransitionNotAllowed),
        ("ONGOING", "BOGUS", InvalidState),
    ],
)
def test_refused_transitions(old, new, error):
    with pytest.raises(error):
        audit_changes.decide(current(state=old), {"state": new}, NOW)


def test_a_new_interval_reschedules_from_now():
    assert audit_changes.decide(current(), {"interval": "3600"}, NOW) == {
        "interval": "3600",
        "next_run_time": NOW + datetime.timedelta(hours=1),
    }
    cron = audit_changes.decide(current(), {"interval": "*/5 * * * *"}, NOW)
    assert cron["next_run_time"] == datetime.datetime(2030, 1, 1, 10, 5)


def test_the_same_interval_keeps_the_schedule():
    assert audit_changes.decide(current(), {"interval": "60"}, NOW) == {"interval": "60"}


def test_a_new_window_makes_the_audit_due():
    values = audit_changes.decide(current(), {"end_time": "2031-01-01T00:00:00"}, NOW)
    assert values == {"end_time": datetime.datetime(2031, 1, 1), "next_run_time": None}


def test_event_audits_are_not_rescheduled():
    values = audit_changes.decide(current(audit_type="EVENT"), {"interval": "30"}, NOW)
    assert values == {"interval": "30"}


def test_a_null_or_removed_force_is_false_a_null_auto_trigger_refused():
    assert audit_changes.decide(current(), {"force": None}, NOW) == {"force": False}
    with pytest.raises(PatchRefused, match="auto_trigger must be true or false"):
        audit_changes.decide(current(), {"auto_trigger": None}, NOW)


def test_values_are_checked():
    with pytest.raises(InvalidInterval):
        audit_changes.decide(current(), {"interval": "* *"}, NOW)
    with pytest.raises(PatchRefused, match="must be specified for CONTINUOUS"):
        audit_changes.decide(current(), {"interval": None}, NOW)
    with pytest.raises(EndBeforeStart):
        audit_changes.decide(
            current(start_time=datetime.datetime(2030, 6, 1)), {"end_time": "2030-05-01"}, NOW
        )
    with pytest.raises(InvalidAuditParameters):
        audit_changes.decide(current(), {"parameters": {"para1": "x"}}, NOW)
    with pytest.raises(PatchRefused):
        audit_changes.decide(current(), {"force": "yes"}, NOW)
    with pytest.raises(PatchRefused):
        audit_changes.decide(current(), {"name": ""}, NOW)


def test_parameters_get_their_defaults_and_names_are_cut():
    values = audit_changes.decide(current(), {"parameters": {}, "name": "n" * 80}, NOW)
    assert values == {"parameters": {"para1": 3.2}, "name": "n" * 63}
