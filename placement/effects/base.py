"""The contract between action types and the applier that runs them.

An installed action type is an :class:`Effect`: any object with the
:class:`~placement.actionplans.action_types.ActionTypeDeclaration` of its type
(``declaration``: name, input schema, planner defaults) and a ``run`` method.
The applier opens one writer
transaction per action, calls ``run`` inside it and records the returned
:class:`Outcome` in the same transaction, so an effect and the record of it
commit together or not at all. A type whose run waits for a long time (sleep)
sets ``blocking = True``: it is called with ``conn=None`` so no transaction is
held while it waits, and it watches ``env.cancelled`` to stop early.

The final states are the action states of :mod:`placement.actionplans.states`;
the status texts are upstream Watcher's, so clients that match on them keep
working.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from oslo_config.cfg import ConfigOpts
from sqlalchemy.engine import Connection, Engine

from placement.actionplans.action_types import ActionTypeDeclaration
from placement.actionplans.states import CANCELLED, FAILED, SKIPPED, SUCCEEDED

SKIPPED_PREFIX = "Action was skipped automatically: "
FAILED_PRE_CONDITION_PREFIX = "Action failed in pre_condition: "
FAILED_EXECUTE_PREFIX = "Action failed in execute: "
FAILED_POST_CONDITION_PREFIX = "Action failed in post_condition: "


@dataclass(frozen=True)
class Outcome:
    """What one run of an action came to: a final action state and its status message."""

    state: str
    message: str | None = None


def succeeded() -> Outcome:
    """The action did what it was asked."""
    return Outcome(SUCCEEDED)


def skipped(reason: str) -> Outcome:
    """Nothing to do (the effect is already there, or its target has gone)."""
    return Outcome(SKIPPED, SKIPPED_PREFIX + reason)


def cancelled() -> Outcome:
    """The plan was cancelled while the action waited: it did not do what it was asked."""
    return Outcome(CANCELLED, "Action cancelled: the action plan was cancelled while it ran.")


def failed_pre_condition(reason: str) -> Outcome:
    """The action cannot run as asked; nothing was changed."""
    return Outcome(FAILED, FAILED_PRE_CONDITION_PREFIX + reason)


def failed_execute(reason: str) -> Outcome:
    """The action started but could not complete; its transaction must roll back."""
    return Outcome(FAILED, FAILED_EXECUTE_PREFIX + reason)


def failed_post_condition(reason: str) -> Outcome:
    """The action ran but its result does not hold."""
    return Outcome(FAILED, FAILED_POST_CONDITION_PREFIX + reason)


class RunAgain(Exception):
    """The action's transaction lost a race (a provider or consumer generation moved).

    Writes may already have happened in it: the applier must roll the transaction
    back and call ``run`` again in a fresh one (a bounded number of times, then
    record FAILED with ``failed_execute(str(exc))``).
    """


def _records_nothing(request: Mapping[str, Any]) -> None:
    raise RuntimeError("this run has nowhere to record a request")


@dataclass(frozen=True)
class RunEnv:
    """What a running action may use besides its transaction.

    An effect that acts outside our database (asks Nova) says what it is about
    to ask with ``record`` before asking: the dict is written on the action,
    guarded by the run's attempt, and committed before ``record`` returns; a
    run that is no longer current gets an exception instead and must not ask.
    ``recorded`` is what an earlier run of the same action recorded (None: it
    asked nothing, or never ran), for a run after a crash to reconcile from.
    ``as_written``: the plan's actions are its requester's own (``actuator``), to
    be done exactly as written; a strategy's were planned from Placement alone.
    """

    conf: ConfigOpts
    engine: Engine
    cancelled: threading.Event
    recorded: Mapping[str, Any] | None = None
    record: Callable[[Mapping[str, Any]], None] = field(default=_records_nothing)
    as_written: bool = False


@runtime_checkable
class Effect(Protocol):
    """One installed action type. ``run`` gets ``conn=None`` when the type is blocking."""

    declaration: ActionTypeDeclaration

    def run(self, conn: Connection | None, params: dict[str, Any], env: RunEnv) -> Outcome: ...


def is_blocking(effect: Effect) -> bool:
    """Whether the applier must call ``run`` outside any transaction (default: no)."""
    return bool(getattr(effect, "blocking", False))
