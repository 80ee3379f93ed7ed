"""Keep child processes running beside a server: ``placement-api``'s applier and audit runner.

A child that dies (killed, out of memory) would otherwise stay dead while
the server goes on answering, and the plans it had started would stay
ONGOING. The supervisor starts another after a back-off that doubles from
:data:`FIRST_DELAY` up to :data:`MAX_DELAY` seconds, so a child that cannot
start costs a try a minute at most, and that falls back to
:data:`FIRST_DELAY` once a child has lived :data:`STEADY` seconds.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import threading
import time
from collections.abc import Callable

LOG = logging.getLogger("placement.supervisor")

#: Seconds between two looks at the child.
POLL = 0.5
#: The first wait before a restart, and the longest.
FIRST_DELAY, MAX_DELAY = 1.0, 60.0
#: A child living this long resets the back-off.
STEADY = 60.0
#: How long a stopped child may take to exit before it is killed.
STOP_TIMEOUT = 15.0


def describe_exit(returncode: int) -> str:
    """How a child ended. Gunicorn's master reaps every child it has (it
    waits for any pid), so ours may be reaped there first: Popen then says 0."""
    if returncode < 0:
        return f"killed by {signal.Signals(-returncode).name}"
    if returncode > 0:
        return f"exit status {returncode}"
    return "exited"


def stop_child(child: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL when it has not exited within :data:`STOP_TIMEOUT`."""
    child.terminate()
    try:
        child.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


class Supervisor:
    """Runs ``start()``'s child and starts another whenever it dies, until :meth:`stop`.

    A daemon thread watches; it is not carried into processes forked later
    (gunicorn's workers), which only the thread calling ``fork`` is.
    """

    def __init__(self, name: str, start: Callable[[], subprocess.Popen]) -> None:
        self.name = name
        self._start = start
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # a restart and stop() never interleave
        self.child = start()
        self._started_at = time.monotonic()
        self._thread = threading.Thread(target=self._watch, name=f"{name}-supervisor", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        delay = FIRST_DELAY
        while not self._stopping.wait(POLL):
            returncode = self.child.poll()
            if returncode is None:
                continue
            if time.monotonic() - self._started_at >= STEADY:
                delay = FIRST_DELAY
            LOG.warning(
                "%s (pid %d) %s; starting another in %.0f s",
                self.name,
                self.child.pid,
                describe_exit(returncode),
                delay,
            )
            if self._stopping.wait(delay):
                return
            delay = min(delay * 2, MAX_DELAY)
            self._restart()

    def _restart(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            self.child = self._start()
            self._started_at = time.monotonic()
        LOG.info("%s started again (pid %d)", self.name, self.child.pid)

    def stop(self) -> None:
        """Stop watching, then stop the child."""
        self._stopping.set()
        with self._lock:
            stop_child(self.child)
        self._thread.join(timeout=POLL * 4)
