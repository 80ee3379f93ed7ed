"""Reads run again when the database dropped them.

A ``GET`` reads in autocommit or in transactions the object layer opens
where it needs them (42 places): rather than wrap each, a read *request* is
run again whole when its database connection was cut (a Galera node killed
behind a proxy: the next attempt gets a fresh connection, through the node
the proxy failed over to) or a statement was aborted, for as long as the
engine's retry policy allows. Reads change nothing, so running one again is
always safe.

The error renderer (``ErrorRenderer.handle_database``) marks such an answer
in the WSGI environment (:data:`RERUN_KEY`); this layer, directly around
the Falcon application, discards the marked answer and calls the
application again after a jittered pause, until an answer is not marked or
the budget is spent, and only then starts the response. Writes are never
run again here: the object layer retries their transactions itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from placement.db.retry import RetryPolicy

#: The methods whose requests only read.
READ_METHODS = frozenset({"GET", "HEAD"})

#: WSGI environment key the error renderer sets on an answer worth a re-run.
RERUN_KEY = "placement.rerun_read"


class RerunReads:
    """WSGI middleware: the Falcon application, with read requests re-run."""

    def __init__(self, app: Callable[..., Iterable[bytes]], policy: RetryPolicy) -> None:
        self.app = app
        self.policy = policy

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") not in READ_METHODS:
            return self.app(environ, start_response)
        budget = self.policy.budget()
        started: list[Any] = []

        def hold(status: str, headers: list, exc_info: Any = None) -> Callable:
            started[:] = [status, headers, exc_info]
            return _no_write

        while True:
            body = self.app(environ, hold)
            pause = budget.next_pause() if environ.pop(RERUN_KEY, False) else None
            if pause is None:
                start_response(*started)
                return body
            close = getattr(body, "close", None)
            if close is not None:
                close()
            time.sleep(pause)


def _no_write(_data: bytes) -> None:
    raise RuntimeError("the application must return its body, not write it")
