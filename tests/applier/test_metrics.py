"""An applier's own exposition: ``placement_applier_actions_total`` by type and final
state, and ``placement_db_pool_connections_in_use`` following its transactions."""

from __future__ import annotations

import urllib.error
from pathlib import Path

from tests import server
from tests.applier.processes import Rig, eventually, recorded

#: How long the first action holds its transaction open (seconds): long enough for
#: the test to scrape the exposition while that connection is checked out.
HOLD = 2.0

POOL = "placement_db_pool_connections_in_use"


def test_actions_are_counted_by_type_and_final_state(applier_rig: Rig, tmp_path: Path):
    port = server.free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    extra = tmp_path / "metrics.conf"
    extra.write_text(f"[metrics]\nenabled = true\napplier_bind = 127.0.0.1:{port}\n")
    # "held" keeps its writer transaction open for HOLD seconds; everything else waits
    # for it, so no other writer queues behind it while the gauge is read.
    plan = applier_rig.plan(
        [
            recorded("held", delay=HOLD),
            recorded("two", 0, outcome="SKIPPED"),
            {"type": "teleport", "params": {}, "parents": [0]},
        ]
    )
    process = applier_rig.start("--config-file", str(extra), lease=10.0)

    def scrape() -> dict[str, float] | None:
        try:
            return server.scrape(url)
        except (urllib.error.URLError, ConnectionError):
            return None  # the exposition is not up yet

    def pool_in_use() -> float | None:
        samples = scrape()
        return None if samples is None else server.sample(samples, POOL)

    # While "held" runs, its transaction's connection is counted by the gauge.
    eventually(
        lambda: (pool_in_use() or 0) >= 1,
        timeout=30,
        explain=lambda: f"gauge {pool_in_use()}\n{applier_rig.log(process)}",
    )
    eventually(
        lambda: applier_rig.plan_row(plan).state == "FAILED",
        explain=lambda: applier_rig.log(process),
    )
    # Idle again, the applier has given every connection back: exactly 0, not merely
    # "not negative" (a connection kept out, or a gauge never moved, fails here or above).
    eventually(
        lambda: pool_in_use() == 0,
        timeout=10,
        explain=lambda: f"gauge {pool_in_use()}\n{applier_rig.log(process)}",
    )
    samples = scrape()
    assert samples is not None
    assert f"{POOL}{{}}" in samples

    def actions(action_type: str, state: str) -> float:
        return server.sample(
            samples, "placement_applier_actions_total", action_type=action_type, state=state
        )

    assert actions("recorded", "SUCCEEDED") == 1
    assert actions("recorded", "SKIPPED") == 1
    assert actions("teleport", "FAILED") == 1
    assert actions("recorded", "FAILED") == 0
