"""``placement-api`` in the embedded default runs an applier beside itself."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
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
    """Children of every thread of ``pid`` (the supervisor thread starts a new applier)."""
    tasks = Path(f"/proc/{pid}/task").glob("*/children")
    return [int(child) for task in tasks for child in task.read_text().split()]


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def _started_plan(port: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The plan of an auto-triggered actuator audit running ``actions``."""
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
    return plan


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
        plan = _started_plan(port, actions)

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


PLACEMENT = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"}


def _placement(port: int, method: str, path: str, body: dict | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    headers = {**PLACEMENT, "Content-Type": "application/json"}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read() or b"null")


def _node(port: int, name: str) -> str:
    node = _placement(port, "POST", "/resource_providers", {"name": name})
    _placement(
        port,
        "PUT",
        f"/resource_providers/{node['uuid']}/inventories",
        {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8}}},
    )
    return str(node["uuid"])


def _consumer_on(port: int, node: str) -> str:
    consumer = str(uuid.uuid4())
    _placement(
        port,
        "PUT",
        f"/allocations/{consumer}",
        {
            "allocations": {node: {"resources": {"VCPU": 1}}},
            "project_id": "p",
            "user_id": "u",
            "consumer_generation": None,
            "consumer_type": "INSTANCE",
        },
    )
    return consumer


def _applier_of(server: subprocess.Popen, not_pid: int | None = None) -> int | None:
    found = [
        child
        for child in _children(server.pid)
        if child != not_pid and "placement.cmd.applier" in _cmdline(child)
    ]
    return found[0] if found else None


def test_a_killed_applier_is_started_again_and_finishes_its_plan_once(tmp_path: Path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path), OS_DEFAULT__LEASE_SECONDS="2")
    log = open(tmp_path / "server.log", "a+")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        eventually(lambda: _answers(port), timeout=60, every=0.2)
        first = eventually(lambda: _applier_of(server), timeout=30)
        source, destination = _node(port, "src"), _node(port, "dst")
        consumers = [_consumer_on(port, source) for _ in range(3)]
        actions = [{"action_type": "sleep", "input_parameters": {"duration": 3}}] + [
            {
                "action_type": "migrate",
                "resource_id": consumer,
                "input_parameters": {
                    "migration_type": "live",
                    "source_node": "src",
                    "destination_node": "dst",
                },
            }
            for consumer in consumers
        ]
        plan = _started_plan(port, actions)
        listing = f"/v1/actions?action_plan_uuid={plan['uuid']}"

        def sleeping() -> bool:
            return any(
                a["action_type"] == "sleep" and a["state"] == "ONGOING"
                for a in _call(port, "GET", listing)["actions"]
            )

        eventually(sleeping, timeout=30, every=0.05)
        os.kill(first, signal.SIGKILL)
        second = eventually(lambda: _applier_of(server, not_pid=first), timeout=30)
        assert second != first

        def final_state() -> str | None:
            state = _call(port, "GET", f"/v1/action_plans/{plan['uuid']}")["state"]
            return state if state in ("SUCCEEDED", "FAILED") else None

        assert eventually(final_state, timeout=60, every=0.2) == "SUCCEEDED"
        listed = _call(port, "GET", listing)["actions"]
        assert [a["state"] for a in listed] == ["SUCCEEDED"] * 4
        for consumer in consumers:
            held = _placement(port, "GET", f"/allocations/{consumer}")
            assert list(held["allocations"]) == [destination]
            assert held["consumer_generation"] == 2  # written twice: created, moved once
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        log.seek(0)
        output = log.read()
        log.close()
    assert f"placement-applier (pid {first}) " in output  # killed: gunicorn may reap it first
    assert f"placement-applier started again (pid {second})" in output
    # The execution records: the sleep ran twice (the kill cut its first run
    # short), every migrate once.
    database = tmp_path / "placement" / "placement.sqlite"
    with sqlite3.connect(database) as conn:
        attempts = dict(conn.execute("SELECT action_type, SUM(attempts) FROM actions GROUP BY 1"))
    assert attempts == {"sleep": 2, "migrate": 3}
