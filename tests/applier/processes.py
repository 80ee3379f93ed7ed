"""Applier tests: real ``placement-applier`` processes on a fresh database per test.

Plans are written straight into the tables (any graph, any action type), then
started through the object layer as the API would. The action types come from
the plugin package in ``plugin/``, found through its entry points when that
directory is on ``PYTHONPATH``, exactly as a third-party package's would be.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import delete, insert, select, update

from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import PlannerOptions
from placement.db import actionplan_tables as t
from placement.objects.actionplans import audits, paging, plans

PLUGIN = Path(__file__).parent / "plugin"
sys.path.insert(0, str(PLUGIN))
import applier_test_types  # noqa: E402  (the plugin, also used here for its table)

sys.path.remove(str(PLUGIN))


def recorded(tag: str, *parents: int, delay: float = 0.0, outcome: str = "SUCCEEDED") -> dict:
    """A ``recorded`` action (parents are indices of earlier specs)."""
    return {
        "type": "recorded",
        "params": {"tag": tag, "delay": delay, "outcome": outcome},
        "parents": list(parents),
    }


def wait(seconds: float, *parents: int) -> dict:
    """A blocking ``wait`` action."""
    return {"type": "wait", "params": {"seconds": seconds}, "parents": list(parents)}


@dataclass
class Rig:
    """One fresh database, the applier processes started on it, and what they recorded."""

    backend: str
    url: str
    engine: sqlalchemy.Engine
    tmp: Path
    processes: list[subprocess.Popen] = field(default_factory=list)

    def plan(self, specs: list[dict]) -> plans.ActionPlan:
        """A started (PENDING) plan holding ``specs``; returns its row."""
        audit = audits.create_audit(
            self.engine,
            PlannerOptions(),
            AuditRequest(
                name=f"audit-{uuid.uuid4().hex[:8]}",
                goal="unclassified",
                strategy="actuator",
                audit_type="ONESHOT",
                parameters={
                    "actions": [{"action_type": "nop", "input_parameters": {"message": "x"}}]
                },
            ),
        )
        (plan,) = plans.list_plans(self.engine, paging.Page(), audit_uuid=audit.uuid)
        uuids = [str(uuid.uuid4()) for _ in specs]
        with self.engine.begin() as conn:
            conn.execute(delete(t.actions).where(t.actions.c.action_plan_id == plan.id))
            for index, spec in enumerate(specs):
                conn.execute(
                    insert(t.actions).values(
                        uuid=uuids[index],
                        action_plan_id=plan.id,
                        position=index,
                        action_type=spec["type"],
                        input_parameters=spec["params"],
                        state="PENDING",
                        parents=[uuids[parent] for parent in spec["parents"]],
                    )
                )
        return plans.start_plan(self.engine, plan.uuid)

    def conf_file(self, max_workers: int) -> Path:
        path = self.tmp / f"placement-{max_workers}.conf"
        path.write_text(
            f"[placement_database]\nconnection = {self.url}\n"
            f"[watcher_workflow_engines.taskflow]\nmax_workers = {max_workers}\n"
        )
        return path

    def start(
        self, *extra: str, max_workers: int = 4, lease: float = 1.0, poll: float = 0.05
    ) -> subprocess.Popen:
        """A ``placement-applier`` process; its log goes to a file (see :meth:`log`)."""
        log = open(self.tmp / f"applier-{len(self.processes)}.log", "wb")  # noqa: SIM115
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PLUGIN), os.getcwd()]))
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "placement.cmd.applier",
                "--config-file",
                str(self.conf_file(max_workers)),
                "--lease-seconds",
                str(lease),
                "--poll-interval",
                str(poll),
                *extra,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()
        self.processes.append(process)
        return process

    def once(self, **kwargs: Any) -> str:
        """Run one applier with ``--once`` to its end; returns its log."""
        process = self.start("--once", **kwargs)
        assert process.wait(timeout=120) == 0, self.log(process)
        return self.log(process)

    def log(self, process: subprocess.Popen) -> str:
        return (self.tmp / f"applier-{self.processes.index(process)}.log").read_text()

    def plan_row(self, plan: plans.ActionPlan) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(select(t.action_plans).where(t.action_plans.c.id == plan.id)).one()

    def actions(self, plan: plans.ActionPlan) -> list[Any]:
        """The plan's action rows in plan order."""
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    select(t.actions)
                    .where(t.actions.c.action_plan_id == plan.id)
                    .order_by(t.actions.c.position)
                )
            )

    def runs(self) -> Counter[str]:
        """Committed runs of ``recorded`` actions, by tag."""
        with self.engine.connect() as conn:
            return Counter(conn.execute(select(applier_test_types.runs.c.tag)).scalars())

    def set_plan(self, plan: plans.ActionPlan, **values: Any) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(t.action_plans).where(t.action_plans.c.id == plan.id).values(**values)
            )

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def eventually(
    check: Callable[[], Any],
    timeout: float = 60.0,
    every: float = 0.05,
    explain: Callable[[], str] = lambda: "",
) -> Any:
    """Poll ``check()`` until it returns something truthy; fail after ``timeout``.

    ``explain()`` adds to the failure message (e.g. the tail of an applier's log).
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout} s\n{explain()}")
        time.sleep(every)
