"""osc-placement, unchanged, against our server (``osc_scenario.sh``).

The scenario installs the client from the package index on first use and
starts a real server, so it runs only when asked: ``PLACEMENT_TEST_OSC=1``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCENARIO = Path(__file__).with_name("osc_scenario.sh")


@pytest.mark.skipif(
    os.environ.get("PLACEMENT_TEST_OSC") != "1",
    reason="set PLACEMENT_TEST_OSC=1 to run the osc-placement scenario "
    "(installs the client with pip, starts a server)",
)
def test_osc_placement_scenario():
    result = subprocess.run(["bash", str(SCENARIO)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "osc scenario passed" in result.stdout
