"""osc-placement, unchanged, against our server (``osc_scenario.sh``)."""

from __future__ import annotations

from collections.abc import Callable


def test_osc_placement_scenario(run_scenario: Callable[[str], str]) -> None:
    assert "osc scenario passed" in run_scenario("osc_scenario.sh")
