"""The client venv and a runner for the client scenario scripts."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.clients import clientenv

SCENARIO_TIMEOUT_S = 900


@pytest.fixture(scope="session")
def client_venv() -> Path:
    """The scratch venv with ``openstack`` and its plugins (built on first use)."""
    return clientenv.ensure_client_venv()


@pytest.fixture
def run_scenario(client_venv: Path) -> Callable[[str], str]:
    """Run ``tests/clients/<name>`` with that venv; fail with its output, else return it."""

    def run(name: str) -> str:
        script = Path(__file__).with_name(name)
        env = {**os.environ, "OSC_VENV": str(client_venv)}
        result = subprocess.run(
            ["bash", str(script)],
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT_S,
            env=env,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    return run
