"""One run of one action: its effect and the record of its final state, together.

A non-blocking type runs inside the writer transaction that also records the
action's final state (guarded by the run's attempt number), so both commit or
neither does: after a crash the action is still ONGOING, the plan's next owner
puts it back to PENDING and runs it again, and the effect happens exactly once.
A blocking type (``sleep``) runs with no transaction open; its outcome is
recorded afterwards, unless the applier is shutting down, when the run is left
for the next owner. A blocking type that acts outside our database records
what it asks first (``env.record``, guarded by the attempt) and is given what
an earlier run recorded (``env.recorded``) to reconcile from after a crash.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine

from placement.applier.patience import Stopped, patiently
from placement.db.transaction import writer
from placement.effects import base
from placement.objects.actionplans import execution as store

LOG = logging.getLogger(__name__)

#: Fresh transactions tried for an effect that keeps losing generation races.
RUN_AGAIN_LIMIT = 10


@dataclass(frozen=True)
class ActionRun:
    """An action to run, as started: its record and the attempt that started it."""

    action: store.PlanAction
    attempt: int


def run(
    engine: Engine,
    types: Mapping[str, base.Effect],
    env: base.RunEnv,
    shutdown: threading.Event,
    job: ActionRun,
) -> str | None:
    """Run ``job`` and record its outcome; returns the final state, or None if not recorded.

    None means the run was abandoned (shutdown) or is no longer current (the
    plan was taken over): either way the plan's next owner takes care of it.
    """
    action = job.action
    action_type = types.get(action.action_type)
    try:
        if action_type is None:
            reason = f"no action type {action.action_type!r} is installed"
            outcome = base.failed_pre_condition(reason)
        elif base.is_blocking(action_type):
            outcome = _run_blocking(
                action_type, action.input_parameters, _env_of(env, job, shutdown)
            )
            if shutdown.is_set():
                return None
        else:
            outcome, recorded = _run_in_transaction(engine, action_type, env, shutdown, job)
            if recorded:
                return outcome.state
        patiently(lambda: _record(engine, job, outcome), shutdown, "recording an action")
        return outcome.state
    except (Stopped, store.LostRun) as exc:
        LOG.info("Run %d of action %s left unrecorded: %s", job.attempt, action.uuid, exc)
        return None


def _env_of(env: base.RunEnv, job: ActionRun, shutdown: threading.Event) -> base.RunEnv:
    """``env`` for this run: what an earlier run recorded, and this run's recorder
    (the run's attempt added; database outages waited out; LostRun when the run is
    no longer current)."""
    engine, action_id, attempt = env.engine, job.action.id, job.attempt

    def record(request: Mapping[str, Any]) -> None:
        stamped = {**request, "attempt": attempt}
        patiently(
            lambda: store.record_request(engine, action_id, attempt, stamped),
            shutdown,
            f"recording what action {job.action.uuid} asks",
        )

    return dataclasses.replace(env, recorded=job.action.request, record=record)


def _run_blocking(action_type: base.Effect, params: dict, env: base.RunEnv) -> base.Outcome:
    try:
        return action_type.run(None, params, env)
    except (Stopped, store.LostRun):
        raise
    except Exception as exc:  # an effect's bug ends as a recorded failure
        LOG.exception("Action type %s raised", action_type.declaration.name)
        return base.failed_execute(str(exc))


def _run_in_transaction(
    engine: Engine,
    action_type: base.Effect,
    env: base.RunEnv,
    shutdown: threading.Event,
    job: ActionRun,
) -> tuple[base.Outcome, bool]:
    """The effect and its record in one transaction: ``(outcome, recorded)``.

    A RunAgain from the effect rolls back and runs it again in a fresh
    transaction, up to :data:`RUN_AGAIN_LIMIT` times; any other exception rolls
    back and comes back as an unrecorded FAILED outcome.
    """
    params = job.action.input_parameters

    def attempt() -> base.Outcome:
        with writer(engine) as conn:
            outcome = action_type.run(conn, params, env)
            _finish(conn, job, outcome)
            return outcome

    reason = ""
    for _ in range(RUN_AGAIN_LIMIT):
        try:
            return patiently(attempt, shutdown, f"running action {job.action.uuid}"), True
        except base.RunAgain as exc:
            reason = str(exc)
        except (Stopped, store.LostRun):
            raise
        except Exception as exc:  # an effect's bug or a refused write ends as a failure
            LOG.exception("Action %s (%s) raised", job.action.uuid, action_type.declaration.name)
            return base.failed_execute(str(exc)), False
    return base.failed_execute(reason), False


def _finish(conn: Any, job: ActionRun, outcome: base.Outcome) -> None:
    store.finish_action(conn, job.action.id, job.attempt, outcome.state, outcome.message)


def _record(engine: Engine, job: ActionRun, outcome: base.Outcome) -> None:
    with writer(engine) as conn:
        _finish(conn, job, outcome)
