"""What every ``placement-applier`` does beside executing plans: its service heartbeat
and the periodic plan-expiry check, on a daemon thread of their own.

The heartbeat (``watcher-applier`` on this host, upstream's service name) is what
``/v1/services`` lists as ACTIVE. The first beat is recorded by :meth:`Housekeeping.start`
itself, before the thread starts (as upstream Watcher registers its service at
start-up), so the applier is listed from the moment it says it started; the
thread then beats every third of ``[DEFAULT] service_down_time`` so that one
missed beat does not mark the applier FAILED. The expiry check runs every
``[watcher_decision_engine] check_periodic_interval`` seconds, first at
start-up. On the thread, database errors are logged and tried again at the next
period: housekeeping never stops the applier.
"""

from __future__ import annotations

import datetime
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from oslo_config.cfg import ConfigOpts
from sqlalchemy.engine import Engine

from placement.actionplan_opts import DECISION_ENGINE_GROUP
from placement.applier.patience import patiently
from placement.objects.actionplans import expiry, services

LOG = logging.getLogger(__name__)


@dataclass
class Housekeeping:
    """Beats and checks expiry until ``stop`` is set."""

    conf: ConfigOpts
    engine: Engine
    stop: threading.Event
    host: str = field(default_factory=socket.gethostname)

    @property
    def beat_seconds(self) -> float:
        return self.conf.service_down_time / 3

    def start(self) -> threading.Thread:
        """Record the heartbeat now, then beat and check expiry on a daemon thread.

        The first beat waits out a database outage (:func:`patiently`) and
        raises :class:`Stopped` if ``stop`` is set meanwhile; an error that is
        not an outage is raised, failing the start as upstream's would.
        """
        patiently(self.beat, self.stop, "recording the heartbeat")
        thread = threading.Thread(target=self.run, name="applier-housekeeping", daemon=True)
        thread.start()
        return thread

    def run(self) -> None:
        """Check expiry (first at once), beat every period (the first beat was
        :meth:`start`'s), until ``stop``."""
        next_check = time.monotonic()
        while True:
            if time.monotonic() >= next_check:
                self._guarded("check plan expiry", self.expire)
                next_check = (
                    time.monotonic() + self.conf[DECISION_ENGINE_GROUP].check_periodic_interval
                )
            if self.stop.wait(self.beat_seconds):
                return
            self._guarded("record the heartbeat", self.beat)

    def beat(self) -> None:
        services.heartbeat(self.engine, self.host, services.APPLIER)

    def expire(self) -> None:
        hours = self.conf[DECISION_ENGINE_GROUP].action_plan_expiry
        for uuid in expiry.supersede_expired(self.engine, datetime.timedelta(hours=hours)):
            LOG.info("Action plan %s is older than %d hours: SUPERSEDED", uuid, hours)

    def _guarded(self, what: str, task: Callable[[], None]) -> None:
        try:
            task()
        except Exception as exc:  # the database may be away: try again next period
            LOG.warning("Cannot %s: %s", what, exc)
