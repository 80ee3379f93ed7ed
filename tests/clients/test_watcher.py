"""python-watcherclient, unchanged, against our /v1 API (``watcher_scenario.sh``)."""

from __future__ import annotations

from collections.abc import Callable


def test_watcherclient_scenario(run_scenario: Callable[[str], str]) -> None:
    assert "watcher scenario passed" in run_scenario("watcher_scenario.sh")
