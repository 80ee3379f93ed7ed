"""A real Prometheus for tests: Debian's server as a child process on loopback.

Metric strategies read measured load from Prometheus, and watcher-tempest-plugin
writes the series they read with ``promtool push metrics`` (remote write).
:func:`prometheus` starts Debian's ``/usr/bin/prometheus`` (2.42) on a spare
port with a temporary storage directory and configuration, the remote-write
receiver (where :mod:`tests.promtool_push` writes) and the admin API (where
series are deleted), and stops it when the block ends. The machine's own
``prometheus`` service is never touched: this one listens elsewhere and keeps
its data in the temporary directory.

Static scrape targets carry labels (``{"fqdn": "compute1"}``): that is how
Prometheus tells which series belong to which compute host. They need not be
reachable: ``targets?state=active`` lists the down ones too.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from tests.server import free_port

PROMETHEUS = "/usr/bin/prometheus"
#: The pusher the plugin's ``[optimize] prometheus_promtool`` names.
PROMTOOL_PUSH = os.path.join(os.path.dirname(__file__), "promtool_push.py")


@dataclass(frozen=True)
class Target:
    """A static scrape target (``host:port``) and the labels Prometheus gives it."""

    address: str
    labels: Mapping[str, str]


@dataclass(frozen=True)
class Prometheus:
    """A running server: its base URL (``http://127.0.0.1:<port>``) and port."""

    url: str
    port: int

    @property
    def write_url(self) -> str:
        """The remote-write receiver's URL, as the plugin builds it."""
        return f"{self.url}/api/v1/write"

    def push(self, exposition: str) -> subprocess.CompletedProcess[str]:
        """Push exposition text with the pusher, as the plugin runs promtool."""
        return subprocess.run(
            [sys.executable, PROMTOOL_PUSH, "push", "metrics", self.write_url],
            input=exposition,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def query(self, promql: str) -> list[dict]:
        """An instant query's result vector."""
        answer = self.get("/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        return answer["data"]["result"]

    def get(self, path: str) -> dict:
        """A GET of the HTTP API, its JSON answer."""
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.load(response)

    def delete_series(self, match: str) -> None:
        """Delete every series ``match`` selects (the plugin's clean-up)."""
        query = urllib.parse.urlencode({"match[]": match})
        request = urllib.request.Request(
            f"{self.url}/api/v1/admin/tsdb/delete_series?{query}", method="POST"
        )
        with urllib.request.urlopen(request, timeout=10):
            pass


def available() -> bool:
    """Whether Debian's Prometheus is installed (``.ci/run`` installs it)."""
    return os.access(PROMETHEUS, os.X_OK)


def _config(targets: Sequence[Target]) -> str:
    """A configuration scraping ``targets`` rarely (their health does not matter)."""
    static = [{"targets": [t.address], "labels": dict(t.labels)} for t in targets]
    config = {
        "global": {"scrape_interval": "1m", "evaluation_interval": "1m"},
        "scrape_configs": [{"job_name": "node", "static_configs": static}] if static else [],
    }
    return json.dumps(config)  # JSON is YAML


def _ready(url: str, targets: int) -> bool:
    """Ready, and listing every configured target (discovery lags readiness by seconds)."""
    with contextlib.suppress(OSError, ValueError):
        with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
            if response.status != 200:
                return False
        with urllib.request.urlopen(f"{url}/api/v1/targets?state=active", timeout=2) as response:
            return len(json.load(response)["data"]["activeTargets"]) == targets
    return False


def _wait_ready(
    url: str, targets: int, process: subprocess.Popen[bytes], log_path: str, timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            with open(log_path) as log:
                raise RuntimeError(f"prometheus exited: {log.read()[-2000:]}")
        if _ready(url, targets):
            return
        time.sleep(0.2)
    raise RuntimeError(f"prometheus did not become ready within {timeout} s")


@contextlib.contextmanager
def prometheus(
    targets: Sequence[Target] = (), *, ready_timeout: float = 60
) -> Iterator[Prometheus]:
    """Run a private Prometheus until the block ends; yields it."""
    workdir = tempfile.mkdtemp(prefix="prometheus-test-")
    try:
        config_path = os.path.join(workdir, "prometheus.yml")
        with open(config_path, "w") as config:
            config.write(_config(targets))
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log_path = os.path.join(workdir, "prometheus.log")
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [
                    PROMETHEUS,
                    f"--config.file={config_path}",
                    f"--storage.tsdb.path={os.path.join(workdir, 'data')}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    "--web.enable-remote-write-receiver",
                    "--web.enable-admin-api",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            _wait_ready(url, len(targets), process, log_path, ready_timeout)
            yield Prometheus(url=url, port=port)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# -- series as watcher-tempest-plugin writes them (WATCHER_METRICS.md §4.2) ---------


def _number(value: float) -> str:
    """The plugin's printing: Python's own (integers stay integers)."""
    return repr(value)


def series_text(
    name: str, kind: str, labels: Mapping[str, str], start: float, inc: float, now_ms: int
) -> str:
    """One ``# TYPE`` line and ten samples 30 s apart, the newest 30 s old:
    value k = start + k × inc × 30, labels with double-quoted names and the
    push's ``orig_timestamp``."""
    quoted = ",".join(f'"{k}"="{v}"' for k, v in {**labels, "orig_timestamp": now_ms}.items())
    lines = [f"# TYPE {name} {kind}"]
    for k in range(1, 11):
        value = start + k * inc * 30 if inc else start
        lines.append(f"{name}{{{quoted}}} {_number(value)} {now_ms - 300_000 + (k - 1) * 30_000}")
    return "\n".join(lines) + "\n"


def host_text(
    fqdn: str, memory_mb: int, now_ms: int, *, idle_slopes: Sequence[float], load: float
) -> str:
    """A hypervisor's series: idle CPU seconds per vCPU (slope 0: fully busy), and
    memory ``load`` used (the plugin's 0.8 loaded, 0.1 otherwise)."""
    labels = {"instance": f"{fqdn}:9100", "fqdn": fqdn}
    parts = [
        series_text(
            "node_cpu_seconds_total",
            "counter",
            {**labels, "mode": "idle", "cpu": str(cpu)},
            1.0,
            slope,
            now_ms,
        )
        for cpu, slope in enumerate(idle_slopes)
    ]
    available = int(memory_mb * (1 - load)) * 1024 * 1024
    parts.append(
        series_text("node_memory_MemAvailable_bytes", "gauge", labels, available, 0, now_ms)
    )
    total = memory_mb * 1024 * 1024
    parts.append(series_text("node_memory_MemTotal_bytes", "gauge", labels, total, 0, now_ms))
    return "".join(parts)


def instance_text(uuid: str, ram_mb: int, now_ms: int) -> str:
    """An instance's Ceilometer series: 0.8 CPU-seconds per second, 80 % of its RAM."""
    labels = {"resource": uuid}
    return series_text("ceilometer_cpu", "counter", labels, 1.0, 8e8, now_ms) + series_text(
        "ceilometer_memory_usage", "gauge", labels, int(ram_mb * 0.8), 0, now_ms
    )
