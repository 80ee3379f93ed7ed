"""State names of audits, plans and actions, and the changes the API allows.

The rules are data (doc/planner.md §7, doc/watcher-api.md §3.5); the check
functions raise the typed errors whose text is upstream's.
"""

from __future__ import annotations

from collections.abc import Mapping

from placement.actionplans.errors import (
    ActionTransitionNotAllowed,
    DeleteError,
    InvalidState,
    PlanStateForbidsActionUpdate,
    StartError,
    StateTransitionNotAllowed,
    StatusMessageUpdateNotAllowed,
)

# Names shared by several machines.
PENDING = "PENDING"
ONGOING = "ONGOING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
DELETED = "DELETED"
CANCELLED = "CANCELLED"
CANCELLING = "CANCELLING"
# Plan only.
RECOMMENDED = "RECOMMENDED"
SUPERSEDED = "SUPERSEDED"
# Action only.
SKIPPED = "SKIPPED"
# Audit only.
SUSPENDED = "SUSPENDED"

ACTION_STATES = (PENDING, ONGOING, SUCCEEDED, FAILED, DELETED, CANCELLED, CANCELLING, SKIPPED)
PLAN_STATES = (
    RECOMMENDED,
    PENDING,
    ONGOING,
    FAILED,
    SUCCEEDED,
    DELETED,
    CANCELLED,
    SUPERSEDED,
    CANCELLING,
)
AUDIT_STATES = (PENDING, ONGOING, SUCCEEDED, FAILED, CANCELLED, DELETED, SUSPENDED)

#: Plan state changes a PATCH may ask for (start is RECOMMENDED -> PENDING too).
PLAN_API_TRANSITIONS: Mapping[str, frozenset[str]] = {
    RECOMMENDED: frozenset({PENDING, CANCELLED}),
    PENDING: frozenset({CANCELLED}),
    ONGOING: frozenset({CANCELLING}),
}
#: Plans in these states may be deleted.
DELETABLE_PLAN_STATES = frozenset({SUCCEEDED, RECOMMENDED, FAILED, SUPERSEDED, CANCELLED})
#: The only state a plan may be started from.
STARTABLE_PLAN_STATE = RECOMMENDED

#: Audit state changes, for the API and the engine alike.
AUDIT_TRANSITIONS: Mapping[str, frozenset[str]] = {
    PENDING: frozenset({ONGOING, CANCELLED}),
    ONGOING: frozenset({FAILED, SUCCEEDED, CANCELLED, SUSPENDED}),
    FAILED: frozenset({DELETED}),
    SUCCEEDED: frozenset({DELETED}),
    CANCELLED: frozenset({DELETED}),
    SUSPENDED: frozenset({ONGOING, DELETED}),
}
#: Audits in these states may be deleted.
DELETABLE_AUDIT_STATES = frozenset({FAILED, SUCCEEDED, CANCELLED, SUSPENDED})

#: Action state changes a PATCH may ask for.
ACTION_API_TRANSITIONS: Mapping[str, frozenset[str]] = {PENDING: frozenset({SKIPPED})}
#: An action may be changed by the API only while its plan is in one of these.
PLAN_STATES_ALLOWING_ACTION_UPDATE = frozenset({RECOMMENDED, PENDING})

#: status_message of an action skipped through the API.
SKIPPED_BY_USER = "Action skipped by user."


def _check(
    known: tuple[str, ...], rules: Mapping[str, frozenset[str]], old: str, new: object
) -> str:
    if not isinstance(new, str) or new not in known:
        raise InvalidState(new)
    if new not in rules.get(old, frozenset()):
        raise StateTransitionNotAllowed(old, new)
    return new


def check_plan_transition(old: str, new: object) -> str:
    """Return ``new`` if a PATCH may move a plan from ``old`` to it, else raise."""
    return _check(PLAN_STATES, PLAN_API_TRANSITIONS, old, new)


def check_audit_transition(old: str, new: object) -> str:
    """Return ``new`` if an audit may move from ``old`` to it, else raise."""
    return _check(AUDIT_STATES, AUDIT_TRANSITIONS, old, new)


def initial_plan_state(has_actions: bool, auto_trigger: bool) -> str:
    """The state an audit's new plan is stored in.

    A plan with nothing to do is already SUCCEEDED; an audit with
    ``auto_trigger`` hands its plan straight to the applier (PENDING); any
    other plan waits for a user to start it (RECOMMENDED).
    """
    if not has_actions:
        return SUCCEEDED
    return PENDING if auto_trigger else RECOMMENDED


def check_plan_startable(state: str) -> None:
    """Raise StartError unless the plan is RECOMMENDED."""
    if state != STARTABLE_PLAN_STATE:
        raise StartError(state)


def check_plan_deletable(state: str) -> None:
    """Raise DeleteError unless a plan in ``state`` may be deleted."""
    if state not in DELETABLE_PLAN_STATES:
        raise DeleteError(state)


def check_audit_deletable(state: str) -> None:
    """Raise DeleteError unless an audit in ``state`` may be deleted."""
    if state not in DELETABLE_AUDIT_STATES:
        raise DeleteError(state)


def check_action_transition(old: str, new: object, plan_state: str) -> str:
    """Return ``new`` if a PATCH may move an action from ``old`` to it, else raise.

    Unknown names are 400 (InvalidState); a refused change or a plan already past
    PENDING is 409, as upstream answers.
    """
    if not isinstance(new, str) or new not in ACTION_STATES:
        raise InvalidState(new)
    if new not in ACTION_API_TRANSITIONS.get(old, frozenset()):
        raise ActionTransitionNotAllowed(old, new)
    if plan_state not in PLAN_STATES_ALLOWING_ACTION_UPDATE:
        raise PlanStateForbidsActionUpdate(plan_state)
    return new


def check_status_message_update(action_state: str) -> None:
    """A user may set ``status_message`` only on a SKIPPED action."""
    if action_state != SKIPPED:
        raise StatusMessageUpdateNotAllowed()


def skipped_status_message(reason: str | None) -> str:
    """The status_message of an action the user skipped, with the reason if given."""
    return f"{SKIPPED_BY_USER} Reason: {reason}" if reason else SKIPPED_BY_USER
