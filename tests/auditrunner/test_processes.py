"""Real ``placement-audit-runner`` processes on one fresh database per test.

Their strategy runs are slowed and recorded (``slow_runner.py``), so a runner can
be SIGKILLed mid-run and the recorded run times show who ran what when.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import PlannerOptions
from placement.db import engine as db_engine
from placement.objects.actionplans import audits, catalog, paging, plans, services
from tests import rig, service_rows
from tests.applier.processes import eventually


@pytest.fixture(params=rig.backends())
def database(request: pytest.FixtureRequest) -> Iterator[tuple[str, object]]:
    with rig.migrated_database(request.param) as url:
        engine = db_engine.engine_from_url(url)
        try:
            catalog.sync_catalog(engine)
            yield url, engine
        finally:
            engine.dispose()


def _runner(url: str, tmp: Path, slow: float, lease: float) -> subprocess.Popen:
    conf = tmp / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = {url}\n")
    env = dict(os.environ, SLOW_RUN_SECONDS=str(slow), RUN_RECORD=str(tmp / "runs.jsonl"))
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.auditrunner.slow_runner",
            "--config-file",
            str(conf),
            "--lease-seconds",
            str(lease),
            "--poll-interval",
            "0.05",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _runs(tmp: Path) -> list[dict]:
    record = tmp / "runs.jsonl"
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def _continuous(engine, interval: str) -> audits.Audit:
    body = {
        "audit_type": "CONTINUOUS",
        "goal": "dummy",
        "strategy": "dummy",
        "interval": interval,
        "name": f"c-{uuid.uuid4().hex[:8]}",
    }
    return audits.create_audit(engine, PlannerOptions(), AuditRequest.from_body(body))


def _stop(*processes: subprocess.Popen) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_two_runners_never_run_one_audit_at_once(database, tmp_path):
    url, engine = database
    made = [_continuous(engine, "1") for _ in range(2)]
    runners = [_runner(url, tmp_path, slow=0.3, lease=2.0) for _ in range(2)]
    try:
        eventually(lambda: len(_runs(tmp_path)) >= 8 or None, timeout=60, every=0.2)
    finally:
        _stop(*runners)
    runs = _runs(tmp_path)
    assert len({run["pid"] for run in runs}) == 2, "both runners ran audits"
    for audit in made:
        mine = sorted((run["start"], run["end"]) for run in runs if run["audit"] == audit.uuid)
        assert len(mine) >= 2
        assert all(b[0] >= a[1] for a, b in zip(mine, mine[1:], strict=False)), mine


def test_a_runner_killed_mid_run_is_replaced_once_its_lease_runs_out(database, tmp_path):
    url, engine = database
    audit = _continuous(engine, "3600")
    lease = 2.0
    doomed = _runner(url, tmp_path, slow=30, lease=lease)
    try:

        def held() -> bool | None:
            return audits.get_audit(engine, audit.uuid).state == "ONGOING" or None

        eventually(held, timeout=60, every=0.1)  # mid-run: ONGOING, its strategy sleeping
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        killed_at = time.time()
        heir = _runner(url, tmp_path, slow=0, lease=lease)
        try:
            eventually(lambda: _runs(tmp_path) or None, timeout=60, every=0.1)
        finally:
            _stop(heir)
    finally:
        _stop(doomed)
    (run,) = _runs(tmp_path)
    assert run["pid"] == heir.pid
    # The heir could claim it only once the dead runner's lease had run out: it
    # was renewed at most a third of a lease before the kill.
    assert run["start"] >= killed_at + 2 * lease / 3 - 0.2
    (plan,) = plans.list_plans(engine, paging.Page(), audit_uuid=audit.uuid)
    assert plan.state == "RECOMMENDED"


def test_listed_by_services_once_it_says_it_started(database, tmp_path):
    """Passes 600 s apart: the row read on the ``started`` line can only be the
    start-up one."""
    url, engine = database
    conf = tmp_path / "placement.conf"
    conf.write_text(f"[placement_database]\nconnection = {url}\n")
    log = tmp_path / "runner.log"
    with log.open("wb") as out:
        runner = subprocess.Popen(
            [sys.executable, "-m", "placement.cmd.audit_runner", "--config-file", str(conf)]
            + ["--poll-interval", "600"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        listed = service_rows.listed_once_started(
            engine, runner, log.read_text, r"Audit runner \S+ started"
        )
    finally:
        _stop(runner)
    assert listed == [(socket.gethostname(), services.DECISION_ENGINE, services.ACTIVE)]


def test_the_embedded_server_runs_continuous_audits(tmp_path):
    """``placement-api`` on the embedded default runs an audit runner child."""
    port = rig_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(
        HOME=str(tmp_path),
        XDG_DATA_HOME=str(tmp_path),
        OS_WATCHER_DECISION_ENGINE__CONTINUOUS_AUDIT_INTERVAL="1",
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        eventually(lambda: _answers(port), timeout=60, every=0.2)
        audit = _call(
            port,
            "POST",
            "/v1/audits",
            {"audit_type": "CONTINUOUS", "goal": "dummy", "strategy": "dummy", "interval": "2"},
        )

        def two_plans() -> list | None:
            listed = _call(port, "GET", f"/v1/action_plans?audit_uuid={audit['uuid']}")
            return listed["action_plans"] if len(listed["action_plans"]) >= 2 else None

        states = sorted(plan["state"] for plan in eventually(two_plans, timeout=60, every=0.2))
        assert states[-1] == "RECOMMENDED" and "CANCELLED" in states
        assert _call(port, "GET", f"/v1/audits/{audit['uuid']}")["state"] == "ONGOING"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def rig_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_HEADERS = {
    "Content-Type": "application/json",
    "X-Auth-Token": "admin",
    "OpenStack-API-Version": "infra-optim 1.5",
}


def _call(port: int, method: str, path: str, body: dict | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=_HEADERS
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read() or b"null")


def _answers(port: int) -> bool | None:
    try:
        _call(port, "GET", "/v1/goals")
    except (urllib.error.URLError, ConnectionError):
        return None
    return True
