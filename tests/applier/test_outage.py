"""A database outage mid-plan: the applier waits it out and finishes, each effect once."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest
from sqlalchemy.engine import make_url

from tests.applier.processes import Rig, eventually, recorded
from tests.applier.proxy import Proxy


def test_the_plan_finishes_after_the_database_comes_back(applier_rig: Rig):
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
