"""``placement-api`` in the embedded default runs an applier beside itself."""

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
from pathlib import Path
from typing import Any

from tests.applier.processes import eventually

HEADERS = {
    "Content-Type": "application/json",
    "X-Auth-Token": "admin",
    "OpenStack-API-Version": "infra-optim 1.0",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _call(port: int, method: str, path: str, body: dict | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=HEADERS
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read() or b"null")


def _answers(port: int) -> bool:
    try:
        _call(port, "GET", "/v1/goals")
    except (urllib.error.URLError, ConnectionError):
        return False
    return True


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(child) for child in found]


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_a_started_plan_is_applied_with_nothing_else_running(tmp_path: Path):
    port = _free_port()
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path))
    server = subprocess.Popen(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        eventually(lambda: _answers(port), timeout=60, every=0.2)
        (applier,) = [
            child for child in _children(server.pid) if "placement.cmd.applier" in _cmdline(child)
        ]
        actions = [
            {"action_type": "nop", "input_parameters": {"message": "one"}},
            {"action_type": "sleep", "input_parameters": {"duration": 0.1}},
        ]
        audit = _call(
            port,
            "POST",
            "/v1/audits",
            {
                "audit_type": "ONESHOT",
                "goal": "unclassified",
                "strategy": "actuator",
                "auto_trigger": True,
                "parameters": {"actions": actions},
            },
        )
        (plan,) = _call(port, "GET", f"/v1/action_plans?audit_uuid={audit['uuid']}")["action_plans"]

        def final_state() -> str | None:
            state = _call(port, "GET", f"/v1/action_plans/{plan['uuid']}")["state"]
            return state if state in ("SUCCEEDED", "FAILED") else None

        assert eventually(final_state, timeout=30, every=0.1) == "SUCCEEDED"
        listed = _call(port, "GET", f"/v1/actions?action_plan_uuid={plan['uuid']}")["actions"]
        assert {action["state"] for action in listed} == {"SUCCEEDED"}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    # The applier stopped with the server (which reaped it).
    deadline = time.monotonic() + 15
    while Path(f"/proc/{applier}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{applier}").exists()
