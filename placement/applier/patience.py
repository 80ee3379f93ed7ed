"""Database work that must outlast a database restart.

The object layer's own retries (``placement.db.transaction``) cover a deadlock
or a busy SQLite file: a few tries within a second. An applier in the middle of
a plan must also survive the server going away for a while, so here a call is
re-run on any error that says "the connection or the transaction is gone",
with capped exponential backoff, until it succeeds or the applier is told to
stop. Nothing is lost by giving up then: the plan's lease runs out and the
next applier resumes it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

import sqlalchemy

from placement.db.transaction import is_retryable_db_error

LOG = logging.getLogger(__name__)

T = TypeVar("T")

_FIRST_DELAY = 0.05
_MAX_DELAY = 5.0


class Stopped(Exception):
    """The applier was told to stop while waiting for the database."""


def is_transient(exc: BaseException) -> bool:
    """True for errors that a later retry of the whole transaction may not meet."""
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and is_retryable_db_error(exc):
        return True
    return isinstance(exc, (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError))


def patiently(call: Callable[[], T], stop: threading.Event, what: str) -> T:
    """``call()``, re-run after transient database errors until it works or ``stop`` is set."""
    delay = _FIRST_DELAY
    while True:
        try:
            return call()
        except sqlalchemy.exc.DBAPIError as exc:
            if not is_transient(exc):
                raise
            LOG.warning(
                "Database unavailable while %s, retrying in %.2f s: %s", what, delay, exc.orig
            )
        if stop.wait(delay):
            raise Stopped(what)
        delay = min(_MAX_DELAY, delay * 2)
