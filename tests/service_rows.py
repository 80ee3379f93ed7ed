"""What ``/v1/services`` lists at the moment a service says it started.

``placement-applier`` and ``placement-audit-runner`` write their heartbeat row
before they log that they started (as upstream Watcher registers a service at
start-up), so whoever sees a service up finds it listed. In-process,
:func:`at_start` reads the list from within the handler of that log line, while
the service waits on it; for a process, :func:`listed_once_started` reads it as
soon as the line is in the process's log.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import re
import subprocess
import threading
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy.engine import Engine

from placement.objects.actionplans import paging, services
from tests.applier.processes import eventually

#: ``[DEFAULT] service_down_time``'s default: a row this fresh is ACTIVE.
DOWN_AFTER = datetime.timedelta(seconds=90)


def listed(engine: Engine) -> list[tuple[str, str, str]]:
    """Every service row as ``(host, name, status)``."""
    rows = services.list_services(engine, paging.Page(), DOWN_AFTER)
    return [(row.host, row.name, row.status) for row in rows]


class _AtStart(logging.Handler):
    """On the first record whose text matches ``started``: what is listed then;
    and ``stop`` is set, so the service ends without starting its loop's work."""

    def __init__(self, engine: Engine, started: str, stop: threading.Event) -> None:
        super().__init__(logging.INFO)
        self.engine = engine
        self.started = re.compile(started)
        self.stop = stop
        self.listed: list[tuple[str, str, str]] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.listed is None and self.started.search(record.getMessage()):
            self.listed = listed(self.engine)
            self.stop.set()


@contextlib.contextmanager
def at_start(
    logger: str, engine: Engine, started: str, stop: threading.Event
) -> Iterator[_AtStart]:
    """While in the block, the first ``started`` line on ``logger`` records the
    list (``.listed``) and sets ``stop``."""
    log = logging.getLogger(logger)
    handler, level = _AtStart(engine, started, stop), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def listed_once_started(
    engine: Engine, process: subprocess.Popen, log: Callable[[], str], started: str
) -> list[tuple[str, str, str]]:
    """Wait for a line matching ``started`` in the process's log, then the list."""
    pattern = re.compile(started)

    def up() -> bool:
        if process.poll() is not None:
            pytest.fail(f"exited with {process.returncode} before it started\n{log()}")
        return bool(pattern.search(log()))

    eventually(up, timeout=60, explain=log)
    return listed(engine)
