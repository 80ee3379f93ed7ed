"""``dev.py``: every command the README shows exists, and ``conformance``
hands the harness our profile and venv."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import dev  # noqa: E402  (dev.py is a script at the root, not a package)


def _run_dev(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "dev.py"), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_dev_py_command_the_readme_shows_exists():
    shown = set(re.findall(r"python3 dev\.py (\w+)", (ROOT / "README.rst").read_text()))
    assert shown == set(dev.COMMANDS)


def test_conformance_runs_the_harness_with_our_profile_and_venv(tmp_path):
    (tmp_path / "run.sh").write_text('echo "venv=$PLACEMENT_VENV args=$*"\n')
    done = _run_dev("conformance", PLACEMENT_CONFORMANCE_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"venv={dev.VENV} args=--profile candidate --list public\n"
    done = _run_dev("conformance", "traits", PLACEMENT_CONFORMANCE_DIR=str(tmp_path))
    assert done.stdout.endswith("args=--profile candidate traits\n")


def test_conformance_without_the_harness_says_where_it_looked(tmp_path):
    done = _run_dev("conformance", PLACEMENT_CONFORMANCE_DIR=str(tmp_path))
    assert done.returncode == 2
    assert f"no harness at {tmp_path}" in done.stderr


def _size_findings(path: str, source: str) -> str:
    """What ``dev.py lint``'s ruff (our pyproject.toml) says of ``source`` at ``path``."""
    ruff = Path(sys.executable).parent / "ruff"
    found = subprocess.run(
        [str(ruff), "check", "--output-format", "concise", "--stdin-filename", path, "-"],
        cwd=ROOT,
        input=source,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return found.stdout


def test_lint_refuses_big_functions_in_the_package_only():
    """The size rule's limits come from pyproject.toml (ruff's defaults would
    let both functions below through) and spare tests and benchmarks."""
    long = "def f(x):\n" + "".join(f"    x += {i}\n" for i in range(21)) + "    return x\n"
    branchy = "def g(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(8))
    package = _size_findings("placement/example.py", long + "\n\n" + branchy)
    assert "PLR0915" in package and "C901" in package
    spared = _size_findings("tests/example.py", long + "\n\n" + branchy)
    assert "PLR0915" not in spared and "C901" not in spared


def test_the_venv_is_installed_with_the_constraints_and_refreshed_when_they_change(
    tmp_path, monkeypatch
):
    """A fresh checkout installs the tested versions (``constraints.txt`` lists every
    dependency pinned), and a change of the constraints reinstalls."""
    pins = [
        line.split("==")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert all(len(pin) == 2 for pin in pins), pins
    names = {name.lower() for name, _ in pins}
    assert {"falcon", "sqlalchemy", "keystoneauth1", "oslo.config"} <= names
    for name in ("pyproject.toml", "constraints.txt"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    monkeypatch.setattr(dev, "ROOT", str(tmp_path))
    before = dev._wanted_stamp()
    with open(tmp_path / "constraints.txt", "a") as constraints:
        constraints.write("# refreshed\n")
    assert dev._wanted_stamp() != before
