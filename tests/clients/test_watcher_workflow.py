"""python-watcherclient, unchanged, against our recurring audits
(``watcher_workflow_scenario.sh``): a server running its applier and audit
runner, continuous and cron audits, ``audit update``, the force guard."""

from __future__ import annotations

from collections.abc import Callable


def test_watcherclient_workflow_scenario(run_scenario: Callable[[str], str]) -> None:
    assert "watcher workflow scenario passed" in run_scenario("watcher_workflow_scenario.sh")
