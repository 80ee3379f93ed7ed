"""The scratch client venv: keyed by its pins, and holding exactly them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.clients import clientenv


def test_a_changed_pin_gets_a_venv_of_its_own() -> None:
    bumped = (*clientenv.PINS[:-1], "osc-placement==0.0.1")
    assert clientenv.venv_dir(bumped) != clientenv.venv_dir()
    assert clientenv.venv_dir(tuple(reversed(clientenv.PINS))) == clientenv.venv_dir()
    assert clientenv.venv_dir().parent == clientenv.CACHE_ROOT


def test_the_venv_holds_the_pinned_versions(client_venv: Path) -> None:
    names = [pin.split("==")[0] for pin in clientenv.PINS]
    script = (
        "import importlib.metadata as m, json, sys; "
        "print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    )
    out = subprocess.run(
        [str(client_venv / "bin" / "python"), "-c", script, *names],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == dict(pin.split("==") for pin in clientenv.PINS)


def test_an_unfinished_venv_is_not_taken_for_a_finished_one(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "openstack").touch()
    assert not clientenv._is_complete(tmp_path)
    (tmp_path / clientenv.COMPLETE_MARKER).touch()
    assert clientenv._is_complete(tmp_path)


def test_run_as_a_script_from_anywhere_it_prints_the_venv(
    client_venv: Path, tmp_path: Path
) -> None:
    # scenario_lib.sh runs it so (python3 <repo>/tests/clients/clientenv.py) when
    # OSC_VENV is not set: the repository root must be found without it on sys.path.
    script = Path(clientenv.__file__).resolve()
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    ).stdout
    assert out.strip() == str(client_venv)
