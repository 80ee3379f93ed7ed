"""What the long-running commands beside the API share: ``placement-applier``
and ``placement-audit-runner`` start on a migrated database, stop cleanly on
SIGTERM or SIGINT, print their threads' stacks on SIGUSR1, and (run by
``placement-api``) exit when their parent does."""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import threading
from types import FrameType

import sqlalchemy
from oslo_config import cfg

from placement import conf as placement_conf
from placement.db import migration, standard

LOG = logging.getLogger("placement.daemon")

#: Set by placement-api, which runs these commands beside itself.
PARENT_PID_OPT = cfg.IntOpt(
    "parent-pid",
    help="Exit when this process is no longer our parent (set by placement-api, "
    "which runs this service beside itself).",
)


def watch_parent(parent_pid: int, stop: threading.Event) -> None:
    """Set ``stop`` once ``parent_pid`` is no longer our parent (run in a thread)."""
    while not stop.wait(1.0):
        if os.getppid() != parent_pid:
            LOG.info("Parent process %d is gone; stopping", parent_pid)
            stop.set()


def follow_parent(parent_pid: int | None, stop: threading.Event) -> None:
    """Start :func:`watch_parent` in a daemon thread when a parent was named."""
    if parent_pid:
        threading.Thread(target=watch_parent, args=(parent_pid, stop), daemon=True).start()


def check_schema(engine: sqlalchemy.Engine) -> None:
    """Require ``db sync`` (placement-api's embedded default has migrated before
    it starts its children), then sync the standard names.

    The standard traits and classes are synced as placement-api syncs them at
    start-up: actions add ``COMPUTE_STATUS_DISABLED`` and ask for candidates by
    standard class, which must work even where no API server has started yet.
    """
    if migration.actionplan_revision(engine) != migration.actionplan_head_revision():
        raise placement_conf.ConfigError(
            "the action-plan tables are not at the latest revision: run 'placement-manage db sync'"
        )
    standard.sync_standard_names(engine)


def stop_on_signals(stop_event: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop_event`` (the service stops cleanly);
    SIGUSR1 prints every thread's stack to stderr, for a hang."""

    def stop(signum: int, frame: FrameType | None) -> None:
        LOG.info("Signal %d received; stopping", signum)
        stop_event.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
