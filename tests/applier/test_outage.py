"""A database outage mid-plan: the applier waits it out and finishes, each effect once."""

from __future__ import annotations

import datetime
import signal
import subprocess
import threading
import time
from typing import Any

import pytest
import sqlalchemy
from oslo_config import cfg
from sqlalchemy.engine import make_url

from placement.applier.plan_run import PlanRun
from placement.objects.actionplans import execution as store
from tests.applier.processes import Rig, applier_test_types, eventually, recorded
from tests.applier.proxy import Proxy


def test_the_plan_finishes_after_the_database_comes_back(applier_rig: Rig) -> None:
    if applier_rig.backend == "sqlite":
        pytest.skip("an embedded file has no server to lose")
    url = make_url(applier_rig.url)
    proxy = Proxy(
        (url.host or "127.0.0.1", url.port or {"mysql": 3306}.get(url.get_backend_name(), 5432))
    )
    try:
        applier_rig.url = url.set(host="127.0.0.1", port=proxy.port).render_as_string(
            hide_password=False
        )
        specs = [
            recorded(f"o{index}", *((index - 1,) if index % 5 else ()), delay=0.05)
            for index in range(30)
        ]
        plan = applier_rig.plan(specs)
        applier = applier_rig.start(max_workers=3, lease=1.0)
        eventually(lambda: sum(r.state == "SUCCEEDED" for r in applier_rig.actions(plan)) >= 5)
        proxy.cut()
        time.sleep(3)  # longer than the lease: nobody else is there to take over
        proxy.restore()
        eventually(
            lambda: applier_rig.plan_row(plan).state == "SUCCEEDED",
            timeout=120,
            explain=lambda: _stacks(applier_rig, applier),
        )
        assert applier.poll() is None  # it survived the outage
        assert "Database unavailable" in applier_rig.log(applier)
        assert [r.state for r in applier_rig.actions(plan)] == ["SUCCEEDED"] * 30
        assert applier_rig.runs() == {spec["params"]["tag"]: 1 for spec in specs}
    finally:
        applier_rig.stop_all()
        proxy.cut()


def _stacks(applier_rig: Rig, applier: subprocess.Popen) -> str:
    """The end of the applier's log after it printed every thread's stack (SIGUSR1)."""
    applier.send_signal(signal.SIGUSR1)
    time.sleep(1)
    return applier_rig.log(applier)[-8000:]


def test_a_start_whose_commit_answer_was_lost_is_run_once(
    applier_rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first start commits but its answer is lost, as when the network is cut then.

    The retried start finds the action no longer PENDING; the plan must not
    wait forever for an ONGOING action nobody runs (it did: our own lease kept
    any takeover from resetting it).
    """
    plan = applier_rig.plan([recorded("first"), recorded("second", 0)])
    claim = store.claim_next(applier_rig.engine, "me", datetime.timedelta(seconds=60))
    assert claim is not None
    start_action = store.start_action
    lost: list[int | None] = []

    def start_then_lose_the_answer(*args: Any) -> int | None:
        attempt = start_action(*args)
        if not lost:
            lost.append(attempt)
            raise sqlalchemy.exc.OperationalError("COMMIT", {}, ConnectionResetError("cut"))
        return attempt

    monkeypatch.setattr(store, "start_action", start_then_lose_the_answer)
    give_up = threading.Event()
    timer = threading.Timer(60, give_up.set)
    timer.start()
    try:
        final = PlanRun(
            conf=cfg.ConfigOpts(),
            engine=applier_rig.engine,
            types={"recorded": applier_test_types.RECORDED},
            applier_id="me",
            plan=claim,
            max_workers=2,
            poll_interval=0.01,
            shutdown=give_up,
        ).execute()
    finally:
        timer.cancel()
    assert lost == [1]
    assert final == "SUCCEEDED"
    assert [(r.state, r.attempts) for r in applier_rig.actions(plan)] == [
        ("SUCCEEDED", 2),
        ("SUCCEEDED", 1),
    ]
    assert applier_rig.runs() == {"first": 1, "second": 1}
