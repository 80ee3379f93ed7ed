"""A blocking run records what it asks before asking; the next run reads it.

``env.record`` writes on the action, guarded by the run's attempt, so a run
that is no longer current (its plan taken over) gets LostRun instead and
never asks; ``env.recorded`` hands the next run what the last current one
recorded, which is what the Nova effects reconcile from after a crash.
"""

from __future__ import annotations

import datetime
import threading
from typing import Any

from sqlalchemy import update

from placement.actionplans import states
from placement.actionplans.action_types import ActionTypeDeclaration
from placement.applier import action_run
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.effects import base
from placement.objects.actionplans import execution as store
from tests.applier.processes import Rig

LEASE = datetime.timedelta(seconds=60)


class Asks:
    """A blocking type that records a request, then asks (here: notes it asked)."""

    declaration = ActionTypeDeclaration("asks", {"type": "object"}, weight=1, parallelization=1)
    blocking = True

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.asked: list[int] = []

    def run(self, conn, params: dict, env: base.RunEnv) -> base.Outcome:
        self.seen.append(None if env.recorded is None else dict(env.recorded))
        attempt = len(self.seen)
        env.record({"server": params["server"]})  # the applier adds the attempt
        self.asked.append(attempt)
        return base.succeeded()


def _started(applier_rig: Rig, applier_id: str) -> tuple[Any, store.PlanAction, int]:
    plan = applier_rig.plan([{"type": "asks", "params": {"server": "s1"}, "parents": []}])
    store.claim_next(applier_rig.engine, applier_id, LEASE)
    (action,) = store.plan_actions(applier_rig.engine, plan.id)
    attempt = store.start_action(applier_rig.engine, plan.id, action.id, applier_id)
    assert attempt is not None
    return plan, action, attempt


def _run(applier_rig: Rig, effect: Asks, action: store.PlanAction, attempt: int) -> str | None:
    env = base.RunEnv(conf=None, engine=applier_rig.engine, cancelled=threading.Event())  # type: ignore[arg-type]
    job = action_run.ActionRun(action, attempt)
    return action_run.run(applier_rig.engine, {"asks": effect}, env, threading.Event(), job)


def _take_over(applier_rig: Rig, plan: Any, applier_id: str) -> None:
    with applier_rig.engine.begin() as conn:
        conn.execute(
            update(t.action_plans)
            .where(t.action_plans.c.id == plan.id)
            .values(lease_expires_at=utcnow() - datetime.timedelta(seconds=1))
        )
    assert store.claim_next(applier_rig.engine, applier_id, LEASE) is not None


def test_a_run_records_before_asking_and_the_next_run_reads_it(applier_rig: Rig):
    plan, action, attempt = _started(applier_rig, "old")
    effect = Asks()
    # The first run records and asks, then its applier dies before recording its end
    # (simulated: the plan is taken over and the action run again from its row).
    effect.run(
        None,
        {"server": "s1"},
        action_run._env_of(
            base.RunEnv(conf=None, engine=applier_rig.engine, cancelled=threading.Event()),  # type: ignore[arg-type]
            action_run.ActionRun(action, attempt),
            threading.Event(),
        ),
    )
    _take_over(applier_rig, plan, "new")
    (again,) = store.plan_actions(applier_rig.engine, plan.id)
    assert again.request == {"attempt": 1, "server": "s1"}
    second = store.start_action(applier_rig.engine, plan.id, again.id, "new")
    assert second == 2
    assert _run(applier_rig, effect, again, second) == states.SUCCEEDED
    assert effect.seen == [None, {"attempt": 1, "server": "s1"}]
    (done,) = applier_rig.actions(plan)
    assert (done.state, done.request) == (states.SUCCEEDED, {"attempt": 2, "server": "s1"})


def test_a_run_that_is_no_longer_current_cannot_record_so_never_asks(applier_rig: Rig):
    plan, action, stale = _started(applier_rig, "old")
    _take_over(applier_rig, plan, "new")
    effect = Asks()
    assert _run(applier_rig, effect, action, stale) is None  # left unrecorded
    assert effect.asked == []
    (row,) = applier_rig.actions(plan)
    assert (row.state, row.request) == (states.PENDING, None)
