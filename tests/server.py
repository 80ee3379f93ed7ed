"""A real placement server for tests: gunicorn with several workers on loopback.

The database must already be migrated. The server reads a temporary
``placement.conf`` (noauth2) through ``OS_PLACEMENT_CONFIG_DIR``, exactly as
a deployment would, and is stopped with SIGTERM to its process group.
:func:`scrape` reads a Prometheus exposition (the server's or an applier's).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence

GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")
#: The gunicorn master serving each base URL :func:`gunicorn` yielded.
_MASTERS: dict[str, int] = {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def gunicorn(
    database_url: str,
    *,
    workers: int = 3,
    ready_timeout: float = 60,
    conf_extra: str = "",
    options: Sequence[str] = (),
    environ: dict[str, str] | None = None,
    auth_strategy: str = "noauth2",
    application: str = "placement.wsgi.api:application",
) -> Iterator[str]:
    """Serve ``database_url`` until the block ends; yields the base URL.

    ``conf_extra`` is appended to the ``placement.conf``; ``options`` are
    more gunicorn command-line options (``-c python:...``); ``environ``
    adds to the server's environment; ``auth_strategy`` is ``[api]``'s
    (``keystone`` wants a ``[keystone_authtoken]`` section in ``conf_extra``);
    ``application`` the WSGI entry point served.
    """
    with tempfile.TemporaryDirectory(prefix="placement-server-") as confdir:
        with open(os.path.join(confdir, "placement.conf"), "w") as conf:
            conf.write(
                f"[api]\nauth_strategy = {auth_strategy}\n"
                f"[placement_database]\nconnection = {database_url}\n{conf_extra}"
            )
        port = free_port()
        log_path = os.path.join(confdir, "server.log")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        env["OS_PLACEMENT_CONFIG_DIR"] = confdir
        env.update(environ or {})
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [
                    GUNICORN,
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(workers),
                    "--graceful-timeout",
                    "5",
                    "--no-control-socket",
                    *options,
                    application,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=confdir,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{port}"
        _MASTERS[base] = process.pid
        try:
            _wait_until_ready(base, process, log_path, ready_timeout)
            yield base
        finally:
            del _MASTERS[base]
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def worker_pids(base: str) -> set[int]:
    """The process ids of the workers of the server at ``base`` (the gunicorn
    master's children): a worker killed and replaced changes them."""
    master = _MASTERS[base]
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                # "pid (comm) state ppid ...": comm may hold spaces, so split after it.
                if int(stat.read().rsplit(")", 1)[1].split()[1]) == master:
                    pids.add(int(entry))
    return pids


def _wait_until_ready(base: str, process: subprocess.Popen, log_path: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(base + "/", timeout=2):
                return
        except OSError:  # refused, reset or timed out while workers boot
            time.sleep(0.2)
    with open(log_path) as log:
        raise RuntimeError(f"placement server did not start:\n{log.read()[-3000:]}")


def scrape(metrics_url: str) -> dict[str, float]:
    """Every sample of a Prometheus exposition, keyed by name and sorted labels."""
    with urllib.request.urlopen(metrics_url, timeout=10) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        match = re.fullmatch(r"(\w+)(?:\{(.*)\})? (\S+)", line)
        if match:
            labels = ",".join(sorted(re.findall(r'\w+="[^"]*"', match.group(2) or "")))
            samples[f"{match.group(1)}{{{labels}}}"] = float(match.group(3))
    return samples


def sample(samples: dict[str, float], name: str, **labels: str) -> float:
    """One sample of :func:`scrape`'s result, 0 when absent."""
    key = ",".join(sorted(f'{k}="{v}"' for k, v in labels.items()))
    return samples.get(f"{name}{{{key}}}", 0.0)
