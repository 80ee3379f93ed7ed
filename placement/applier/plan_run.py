"""Executing one claimed plan: dispatch what is ready, cascade failures, obey a cancel.

The loop keeps the plan's actions as :class:`~placement.actionplans.execution.Step`
values, asks the pure rules what is ready, starts each ready action with a
compare-and-swap (at most ``max_workers`` running) and hands it to a thread.
Between dispatches and while waiting for a run to end it reads the plan's
state (one indexed row): CANCELLING stops dispatching and cuts blocking runs
short; a plan that is no longer ours (taken over after our lease ran out) is
left to its new owner.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from typing import TypeVar

from oslo_config.cfg import ConfigOpts
from sqlalchemy.engine import Engine

from placement import metrics
from placement.actionplans import execution, states
from placement.applier import action_run
from placement.applier.patience import Stopped, patiently
from placement.effects import base
from placement.objects.actionplans import execution as store

LOG = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class PlanRun:
    """One plan ``applier_id`` has claimed, executed until it ends or is no longer ours."""

    conf: ConfigOpts
    engine: Engine
    types: Mapping[str, base.Effect]
    applier_id: str
    plan: store.Claim
    max_workers: int
    poll_interval: float
    shutdown: threading.Event
    lost: threading.Event = field(default_factory=threading.Event)
    cancelled: threading.Event = field(default_factory=threading.Event)

    def execute(self) -> str | None:
        """Run the plan to its end; returns its final state, or None if left to another applier."""
        try:
            return self._execute()
        except Stopped:
            return None

    def _patiently(self, call: Callable[[], T], what: str) -> T:
        return patiently(call, self.shutdown, what)

    def _execute(self) -> str | None:
        """The plan loop (module docstring): obey the plan's state, start what is
        ready, collect what ended, until the plan ends or is left."""
        rows, steps = self._load({})
        env = base.RunEnv(
            conf=self.conf,
            engine=self.engine,
            cancelled=self.cancelled,
            as_written=self.plan.as_written,
        )
        running: dict[futures.Future[str | None], str] = {}
        with futures.ThreadPoolExecutor(self.max_workers, "applier-action") as pool:
            while True:
                if not self._still_ours():
                    self._abandon(running)
                    return None
                if not self.cancelled.is_set():
                    steps = self._cancel_blocked(steps, rows)
                    steps = self._dispatch(steps, rows, running, pool, env)
                if running:
                    rows, steps = self._collect_finished(rows, steps, running)
                    continue
                # The plan ends from the rows as they are (a start whose answer
                # was lost is requeued here, not left ONGOING in an ended plan).
                rows, steps = self._load(running)
                final = self._finish(steps)
                if final is not None:
                    return final
                # Nothing runs and nothing could start (a start lost a race,
                # or rows changed behind us): wait, then look again.
                self.shutdown.wait(self.poll_interval)

    def _still_ours(self) -> bool:
        """Read the plan's state and obey it; False once the plan is to be left.

        A CANCELLING plan sets ``cancelled`` (once, logged): the loop stops
        dispatching, and blocking runs see it and end early. The plan is left
        when it is no longer ours (taken over after our lease ran out) or the
        applier is shutting down.
        """
        state = self._poll()
        if state == states.CANCELLING and not self.cancelled.is_set():
            LOG.info("Action plan %s is being cancelled", self.plan.uuid)
            self.cancelled.set()
        return state is not None and not self.shutdown.is_set()

    def _abandon(self, running: Mapping[futures.Future[str | None], str]) -> None:
        """Leave the plan: cut blocking runs short and wait for every run to end.

        Their outcome is dropped: the plan is no longer ours to record it in,
        or we are stopping and the plan goes to the next applier.
        """
        self.cancelled.set()
        futures.wait(running)

    def _collect_finished(
        self,
        rows: dict[str, store.PlanAction],
        steps: list[execution.Step],
        running: dict[futures.Future[str | None], str],
    ) -> tuple[dict[str, store.PlanAction], list[execution.Step]]:
        """Wait up to one poll interval for runs to end; returns the rows and steps after them.

        Ended runs leave ``running``. The wait is bounded so that a cancel or
        a lost plan is noticed while long actions run.
        """
        done, _ = futures.wait(
            running, timeout=self.poll_interval, return_when=futures.FIRST_COMPLETED
        )
        unrecorded = False
        for future in done:
            uuid = running.pop(future)
            final_state = future.result()
            if final_state is None:
                unrecorded = True
            else:
                steps = execution.apply(steps, {uuid: final_state})
                metrics.action_finished(rows[uuid].action_type, final_state)
        if unrecorded:
            # A run could not record its end: shutting down, taken over (the
            # next poll says so), or a commit whose answer the network lost
            # (the row says what happened): the database is the truth.
            return self._load(running)
        return rows, steps

    def _load(
        self, running: Mapping[futures.Future[str | None], str]
    ) -> tuple[dict[str, store.PlanAction], list[execution.Step]]:
        """The plan's actions by uuid, and as steps in plan order.

        An action ONGOING in the database that none of ``running`` runs was
        started by a commit whose answer the network lost (the start was
        retried and found it no longer PENDING): it is put back to PENDING to
        be started again, else the plan would wait for it forever while our
        lease keeps anyone else from resetting it.
        """
        plan_id = self.plan.id
        found = self._patiently(
            lambda: store.plan_actions(self.engine, plan_id), "reading the plan's actions"
        )
        in_flight = set(running.values())
        orphans = [
            row.id for row in found if row.state == states.ONGOING and row.uuid not in in_flight
        ]
        if orphans:
            requeued = set(
                self._patiently(
                    lambda: store.requeue_actions(self.engine, plan_id, self.applier_id, orphans),
                    "requeueing actions whose start was lost",
                )
            )
            found = [self._requeued(row) if row.id in requeued else row for row in found]
        rows = {row.uuid: row for row in found}
        steps = [execution.Step(row.uuid, row.state, row.parents) for row in found]
        return rows, steps

    @staticmethod
    def _requeued(row: store.PlanAction) -> store.PlanAction:
        LOG.warning("Action %s was started but never run; starting it again", row.uuid)
        return dataclasses.replace(row, state=states.PENDING)

    def _poll(self) -> str | None:
        if self.lost.is_set():
            return None
        plan_id = self.plan.id
        return self._patiently(
            lambda: store.owned_state(self.engine, plan_id, self.applier_id), "polling the plan"
        )

    def _cancel_blocked(
        self, steps: list[execution.Step], rows: Mapping[str, store.PlanAction]
    ) -> list[execution.Step]:
        """PENDING actions below a failure become CANCELLED, naming it."""
        blocked = execution.cancelled_by_failure(steps)
        if not blocked:
            return steps
        messages = {rows[uuid].id: message for uuid, message in blocked.items()}
        self._patiently(
            lambda: store.cancel_actions(self.engine, self.plan.id, self.applier_id, messages),
            "cancelling actions",
        )
        return execution.apply(steps, dict.fromkeys(blocked, states.CANCELLED))

    def _dispatch(
        self,
        steps: list[execution.Step],
        rows: Mapping[str, store.PlanAction],
        running: dict[futures.Future[str | None], str],
        pool: futures.Executor,
        env: base.RunEnv,
    ) -> list[execution.Step]:
        """Start ready actions while there is a free worker; returns the updated steps."""
        for uuid in execution.ready(steps):
            if len(running) >= self.max_workers:
                break
            row = rows[uuid]
            attempt = self._patiently(
                functools.partial(
                    store.start_action, self.engine, self.plan.id, row.id, self.applier_id
                ),
                "starting an action",
            )
            if attempt is None:  # cancelled or taken over meanwhile: the next poll says which
                break
            LOG.debug("Starting action %s (%s), run %d", uuid, row.action_type, attempt)
            job = action_run.ActionRun(row, attempt)
            future = pool.submit(action_run.run, self.engine, self.types, env, self.shutdown, job)
            running[future] = uuid
            steps = execution.apply(steps, {uuid: states.ONGOING})
        return steps

    def _finish(self, steps: list[execution.Step]) -> str | None:
        """Record the plan's final state once nothing runs or can run any more."""
        cancelling = self.cancelled.is_set()
        if cancelling:
            steps = execution.apply(
                steps, dict.fromkeys(execution.pending(steps), states.CANCELLED)
            )
        outcome = execution.plan_outcome(steps, cancelling)
        if outcome is None:
            return None
        recorded = self._patiently(
            lambda: store.finish_plan(
                self.engine,
                self.plan.id,
                self.applier_id,
                outcome.state,
                outcome.message,
                cancel_pending=cancelling,
            ),
            "finishing the plan",
        )
        if not recorded:  # cancelled meanwhile, or not ours: the next poll says which
            return None
        LOG.info("Action plan %s finished: %s", self.plan.uuid, outcome.state)
        return outcome.state
