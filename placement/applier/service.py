"""The applier process's main loop: claim a plan, execute it, keep its lease alive.

One plan at a time per applier (run several appliers for several plans at
once). While a plan runs, a heartbeat thread renews its lease every third of
the lease time; if a renewal finds the plan is no longer ours, the run stops
dispatching and leaves the plan to its new owner. Unless ``once``, the
applier records its heartbeat at start-up, then a housekeeping thread beats
and expires stale plans (``placement/applier/housekeeping.py``).
"""

from __future__ import annotations

import datetime
import logging
import os
import socket
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from oslo_config.cfg import ConfigOpts
from sqlalchemy.engine import Engine

from placement.actionplan_opts import TASKFLOW_GROUP
from placement.applier.housekeeping import Housekeeping
from placement.applier.patience import Stopped, is_transient, patiently
from placement.applier.plan_run import PlanRun
from placement.effects.base import Effect
from placement.objects.actionplans import execution as store

LOG = logging.getLogger(__name__)

#: Seconds a stopping applier waits for its housekeeping thread to finish a
#: beat or expiry check in progress (a database outage can hold it longer;
#: the daemon thread then ends with the process).
HOUSEKEEPING_JOIN_SECONDS = 10.0


def new_applier_id() -> str:
    """A name unique to this process: host, pid and a random part (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class Applier:
    """Claims and executes plans until told to stop (or, with ``once``, until none is left)."""

    conf: ConfigOpts
    engine: Engine
    types: Mapping[str, Effect]
    lease_seconds: float = 30.0
    poll_interval: float = 1.0
    applier_id: str = field(default_factory=new_applier_id)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def lease(self) -> datetime.timedelta:
        return datetime.timedelta(seconds=self.lease_seconds)

    def run(self, once: bool = False) -> None:
        """The main loop; returns when ``stop`` is set, or when idle if ``once``.

        Unless ``once``, the applier's heartbeat row is written before it says
        it started (:meth:`Housekeeping.start`), so ``/v1/services`` lists it
        from then on.
        """
        housekeeping: threading.Thread | None = None
        try:
            if not once:
                housekeeping = Housekeeping(self.conf, self.engine, self.stop).start()
            LOG.info("Applier %s started (%d action types)", self.applier_id, len(self.types))
            self._claim_and_execute(once)
        except Stopped:
            pass
        finally:
            if housekeeping is not None and self.stop.is_set():
                # Its beat or expiry check may hold a connection of our engine:
                # whoever disposes of the engine next must find it returned.
                housekeeping.join(HOUSEKEEPING_JOIN_SECONDS)
        LOG.info("Applier %s stopped", self.applier_id)

    def _claim_and_execute(self, once: bool) -> None:
        """Claim plans and execute them one after another until ``stop``
        (or, if ``once``, until none is left)."""
        while not self.stop.is_set():
            claim = patiently(
                lambda: store.claim_next(self.engine, self.applier_id, self.lease),
                self.stop,
                "claiming a plan",
            )
            if claim is not None:
                self._execute(claim)
            elif once:
                break
            else:
                self.stop.wait(self.poll_interval)

    def _execute(self, claim: store.Claim) -> None:
        if claim.taken_over:
            LOG.info(
                "Took over action plan %s (%s) from applier %s, whose lease ran out",
                claim.uuid,
                claim.state,
                claim.previous_applier_id,
            )
        else:
            LOG.info("Claimed action plan %s", claim.uuid)
        run = PlanRun(
            conf=self.conf,
            engine=self.engine,
            types=self.types,
            applier_id=self.applier_id,
            plan=claim,
            max_workers=self.conf[TASKFLOW_GROUP].max_workers,
            poll_interval=self.poll_interval,
            shutdown=self.stop,
        )
        done = threading.Event()
        heartbeat = threading.Thread(
            target=self._heartbeat, args=(claim.id, run.lost, done), daemon=True
        )
        heartbeat.start()
        try:
            final = run.execute()
        finally:
            done.set()
            heartbeat.join()
        if final is None and self.stop.is_set() and not run.lost.is_set():
            self._release(claim)
        elif final is None:
            LOG.warning("Action plan %s is no longer ours; left to its new owner", claim.uuid)

    def _heartbeat(self, plan_id: int, lost: threading.Event, done: threading.Event) -> None:
        """Renew the lease until ``done``; set ``lost`` when the plan stops being ours."""
        while not done.wait(self.lease_seconds / 3):
            try:
                if not store.renew_lease(self.engine, plan_id, self.applier_id, self.lease):
                    lost.set()
                    return
            except Exception as exc:  # a database outage: the next beat tries again
                if not is_transient(exc):
                    LOG.exception("Cannot renew the lease of action plan %d", plan_id)
                else:
                    LOG.warning("Cannot renew the lease of action plan %d: %s", plan_id, exc)

    def _release(self, claim: store.Claim) -> None:
        """Shutting down mid-plan: end our lease so another applier resumes it at once."""
        try:
            store.release(self.engine, claim.id, self.applier_id)
            LOG.info("Released action plan %s for another applier", claim.uuid)
        except Exception as exc:  # the lease runs out by itself
            LOG.warning("Cannot release action plan %s: %s", claim.uuid, exc)
