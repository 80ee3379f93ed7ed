"""``placement_applier_actions_total``: an applier's own exposition, by type and final state."""

from __future__ import annotations

from pathlib import Path

from tests import server
from tests.applier.processes import Rig, eventually, recorded


def test_actions_are_counted_by_type_and_final_state(applier_rig: Rig, tmp_path: Path):
    port = server.free_port()
    extra = tmp_path / "metrics.conf"
    extra.write_text(f"[metrics]\nenabled = true\napplier_bind = 127.0.0.1:{port}\n")
    plan = applier_rig.plan(
        [
            recorded("one"),
            recorded("two", 0, outcome="SKIPPED"),
            {"type": "teleport", "params": {}, "parents": []},
        ]
    )
    process = applier_rig.start("--config-file", str(extra))
    eventually(
        lambda: applier_rig.plan_row(plan).state == "FAILED",
        explain=lambda: applier_rig.log(process),
    )
    samples = server.scrape(f"http://127.0.0.1:{port}/metrics")

    def actions(action_type: str, state: str) -> float:
        return server.sample(
            samples, "placement_applier_actions_total", action_type=action_type, state=state
        )

    assert actions("recorded", "SUCCEEDED") == 1
    assert actions("recorded", "SKIPPED") == 1
    assert actions("teleport", "FAILED") == 1
    assert server.sample(samples, "placement_db_pool_connections_in_use") >= 0
    assert "placement_db_pool_connections_in_use{}" in samples
