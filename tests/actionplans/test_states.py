"""State rules of plans, actions and audits, with upstream's wording."""

import itertools

import pytest

from placement.actionplans import states
from placement.actionplans.errors import (
    ActionTransitionNotAllowed,
    Conflict,
    DeleteError,
    Invalid,
    InvalidState,
    PlanStateForbidsActionUpdate,
    StartError,
    StateTransitionNotAllowed,
    StatusMessageUpdateNotAllowed,
)

PLAN_ALLOWED = {
    ("RECOMMENDED", "PENDING"),
    ("RECOMMENDED", "CANCELLED"),
    ("PENDING", "CANCELLED"),
    ("ONGOING", "CANCELLING"),
}


@pytest.mark.parametrize("old, new", list(itertools.product(states.PLAN_STATES, repeat=2)))
def test_plan_transitions_through_the_api(old, new):
    if (old, new) in PLAN_ALLOWED:
        assert states.check_plan_transition(old, new) == new
    else:
        with pytest.raises(StateTransitionNotAllowed) as caught:
            states.check_plan_transition(old, new)
        assert str(caught.value) == f"State transition not allowed: ({old} -> {new})"
        assert isinstance(caught.value, Invalid)


@pytest.mark.parametrize("new", ["BOGUS", None, 3, "pending"])
def test_an_unknown_plan_state_is_invalid(new):
    with pytest.raises(InvalidState, match=f"Invalid state: {new}"):
        states.check_plan_transition("RECOMMENDED", new)


def test_only_a_recommended_plan_starts():
    states.check_plan_startable("RECOMMENDED")
    with pytest.raises(StartError, match="^Couldn't start when state is 'ONGOING'.$"):
        states.check_plan_startable("ONGOING")


@pytest.mark.parametrize("state", states.PLAN_STATES)
def test_plan_deletion(state):
    if state in {"SUCCEEDED", "RECOMMENDED", "FAILED", "SUPERSEDED", "CANCELLED"}:
        states.check_plan_deletable(state)
    else:
        with pytest.raises(DeleteError, match=f"^Couldn't delete when state is '{state}'.$"):
            states.check_plan_deletable(state)


AUDIT_ALLOWED = {
    ("PENDING", "ONGOING"),
    ("PENDING", "CANCELLED"),
    ("ONGOING", "FAILED"),
    ("ONGOING", "SUCCEEDED"),
    ("ONGOING", "CANCELLED"),
    ("ONGOING", "SUSPENDED"),
    ("FAILED", "DELETED"),
    ("SUCCEEDED", "DELETED"),
    ("CANCELLED", "DELETED"),
    ("SUSPENDED", "ONGOING"),
    ("SUSPENDED", "DELETED"),
}


@pytest.mark.parametrize("old, new", list(itertools.product(states.AUDIT_STATES, repeat=2)))
def test_audit_transitions(old, new):
    if (old, new) in AUDIT_ALLOWED:
        assert states.check_audit_transition(old, new) == new
    else:
        with pytest.raises(StateTransitionNotAllowed):
            states.check_audit_transition(old, new)


@pytest.mark.parametrize("state", states.AUDIT_STATES)
def test_audit_deletion(state):
    if state in {"FAILED", "SUCCEEDED", "CANCELLED", "SUSPENDED"}:
        states.check_audit_deletable(state)
    else:
        with pytest.raises(DeleteError):
            states.check_audit_deletable(state)


@pytest.mark.parametrize("plan_state", ["RECOMMENDED", "PENDING"])
def test_a_pending_action_may_be_skipped_before_its_plan_runs(plan_state):
    assert states.check_action_transition("PENDING", "SKIPPED", plan_state) == "SKIPPED"


def test_other_action_changes_are_conflicts():
    with pytest.raises(ActionTransitionNotAllowed) as caught:
        states.check_action_transition("SKIPPED", "PENDING", "RECOMMENDED")
    assert str(caught.value) == "State transition not allowed: (SKIPPED -> PENDING)"
    assert isinstance(caught.value, Conflict) and not isinstance(caught.value, Invalid)


def test_skipping_in_a_running_plan_is_a_conflict():
    with pytest.raises(
        PlanStateForbidsActionUpdate,
        match="^State update not allowed for actionplan state: ONGOING$",
    ):
        states.check_action_transition("PENDING", "SKIPPED", "ONGOING")


def test_an_unknown_action_state_is_invalid():
    with pytest.raises(InvalidState, match="Invalid state: BOGUS"):
        states.check_action_transition("PENDING", "BOGUS", "RECOMMENDED")


def test_status_message_only_on_skipped_actions():
    states.check_status_message_update("SKIPPED")
    with pytest.raises(
        StatusMessageUpdateNotAllowed, match="only allowed when action state is SKIPPED"
    ):
        states.check_status_message_update("PENDING")


def test_skipped_status_message():
    assert states.skipped_status_message(None) == "Action skipped by user."
    assert states.skipped_status_message("") == "Action skipped by user."
    assert states.skipped_status_message("later") == "Action skipped by user. Reason: later"


@pytest.mark.parametrize(
    ("has_actions", "auto_trigger", "expected"),
    [
        (False, False, "SUCCEEDED"),
        (False, True, "SUCCEEDED"),
        (True, False, "RECOMMENDED"),
        (True, True, "PENDING"),
    ],
)
def test_initial_plan_state(has_actions, auto_trigger, expected):
    assert states.initial_plan_state(has_actions, auto_trigger) == expected
