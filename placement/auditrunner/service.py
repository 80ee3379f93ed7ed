"""The audit runner's main loop: claim due audits, run them, keep the lease alive.

The runner records its heartbeat as the ``watcher-decision-engine`` service
(upstream's name, so ``service list`` reads as upstream's) at start-up, before
it says it started (as upstream Watcher registers its service), so it is
listed from then on. It runs every audit that is due, one at a time (run
several runners for several at once), then every ``poll_interval`` seconds
(``[watcher_decision_engine] continuous_audit_interval``) beats again and
runs what has come due. While a strategy runs, a thread renews the audit's
lease every third of the lease time (and beats); a runner that dies stops
renewing, and once the lease has run out another runner claims the audit.

Any error outside a run's typed refusals (a database outage, say) is logged
and the loop goes on: the audit's lease runs out and it is run again.
"""

from __future__ import annotations

import datetime
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from placement.actionplans.datasources import Measure
from placement.actionplans.planners import PlannerOptions
from placement.auditrunner.run import Clock, Outcome, run_audit
from placement.db.tables import utcnow
from placement.objects.actionplans import audit_runs, services
from placement.objects.actionplans.audit_runs import AuditClaim

LOG = logging.getLogger(__name__)

#: The service name upstream Watcher's decision engine records (``service list``).
SERVICE_NAME = "watcher-decision-engine"


def _new_runner_id() -> str:
    """Host, pid and a random part: unique to this runner (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class AuditRunner:
    """Runs due audits until told to stop (or, with ``once``, until none is due)."""

    engine: Engine
    options: PlannerOptions
    lease_seconds: float = 30.0
    poll_interval: float = 10.0
    runner_id: str = field(default_factory=_new_runner_id)
    hostname: str = field(default_factory=socket.gethostname)
    clock: Clock = utcnow
    #: Answers a metric strategy's queries (None: no datasource, such audits fail).
    measure: Measure | None = None
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def lease(self) -> datetime.timedelta:
        return datetime.timedelta(seconds=self.lease_seconds)

    def run(self, once: bool = False) -> None:
        """The main loop; returns when ``stop`` is set, or after one pass if ``once``.

        The first beat comes before the runner says it started; each later one
        after a wait, before the pass."""
        self._guarded("cannot record the heartbeat", self._beat)
        LOG.info("Audit runner %s started", self.runner_id)
        while not self.stop.is_set():
            self._guarded("pass failed", self.run_due)
            if once or self.stop.wait(self.poll_interval):
                break
            self._guarded("cannot record the heartbeat", self._beat)
        LOG.info("Audit runner %s stopped", self.runner_id)

    def _guarded(self, what: str, task: Callable[[], object]) -> None:
        try:
            task()
        except Exception:  # an outage: the leases run out, the next pass tries again
            LOG.exception("Audit runner %s: %s", self.runner_id, what)

    def run_due(self) -> list[tuple[str, Outcome]]:
        """Claim and run every audit due now; returns each run's audit uuid and outcome."""
        outcomes: list[tuple[str, Outcome]] = []
        while not self.stop.is_set():
            claim = audit_runs.claim_due(
                self.engine, self.runner_id, self.hostname, self.lease, self.clock()
            )
            if claim is None:
                break
            outcome = self._run(claim)
            LOG.info("Audit %s: %s", claim.uuid, outcome.value)
            outcomes.append((claim.uuid, outcome))
        return outcomes

    def _run(self, claim: AuditClaim) -> Outcome:
        done = threading.Event()
        keeper = threading.Thread(target=self._keep_lease, args=(claim.id, done), daemon=True)
        keeper.start()
        try:
            return run_audit(
                self.engine, self.options, claim, self.runner_id, self.clock, self.measure
            )
        finally:
            done.set()
            keeper.join()

    def _keep_lease(self, audit_id: int, done: threading.Event) -> None:
        """Renew the lease (and beat) until ``done`` or the audit is no longer ours."""
        while not done.wait(self.lease_seconds / 3):
            try:
                if not audit_runs.renew_lease(
                    self.engine, audit_id, self.runner_id, self.lease, self.clock()
                ):
                    return
                self._beat()
            except Exception as exc:  # the next renewal tries again
                LOG.warning("Cannot renew the lease of audit %d: %s", audit_id, exc)

    def _beat(self) -> None:
        services.heartbeat(self.engine, self.hostname, SERVICE_NAME, self.clock())
