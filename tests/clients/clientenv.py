"""A scratch virtualenv holding the OpenStack command-line clients.

The client scenarios drive the real ``openstack`` command (with the
osc-placement and python-watcherclient plugins) against our server. Those
packages must never go into the project's own venv (python-watcherclient and
osc-placement pull in half of OpenStack's libraries), so they live in their own
venv under ``~/.cache/placement-test-clients/``, named after a stamp of the
pinned versions: a later run, a parallel xdist worker or CI on the same machine
reuses it, and changing a pin builds a fresh one beside it. A file lock keeps
two processes from installing at once; a marker written last tells a finished
venv from one whose install was interrupted.

Run as a script to build it ahead of time: ``python tests/clients/clientenv.py``.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

PINS: tuple[str, ...] = (
    "python-openstackclient==10.5.0",
    "python-watcherclient==4.11.0",
    "osc-placement==4.9.1",
)
"""What goes into the venv; the stamp (and so the venv's directory) follows it."""

CACHE_ROOT = Path.home() / ".cache" / "placement-test-clients"
INSTALL_TIMEOUT_S = 900
COMPLETE_MARKER = "installed-pins.txt"


def stamp(pins: tuple[str, ...] = PINS) -> str:
    """A short digest of the pins and the interpreter's minor version."""
    text = "\n".join(sorted(pins)) + f"\npython{sys.version_info[0]}.{sys.version_info[1]}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def venv_dir(pins: tuple[str, ...] = PINS) -> Path:
    return CACHE_ROOT / f"venv-{stamp(pins)}"


def _is_complete(venv: Path) -> bool:
    return (venv / COMPLETE_MARKER).is_file() and (venv / "bin" / "openstack").is_file()


def _base_python() -> str:
    """The interpreter to build the venv from: the base one, not our venv's."""
    return getattr(sys, "_base_executable", None) or sys.executable


def _install(venv: Path, pins: tuple[str, ...]) -> None:
    if venv.exists():  # left half-built by an interrupted run
        shutil.rmtree(venv)
    subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", *pins],
        check=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    (venv / COMPLETE_MARKER).write_text("\n".join(pins) + "\n")


def ensure_client_venv(pins: tuple[str, ...] = PINS) -> Path:
    """Return the venv with the pinned clients, installing it on first use."""
    venv = venv_dir(pins)
    if _is_complete(venv):
        return venv
    CACHE_ROOT.mkdir(parents=True, exist_ok=True)
    with open(str(venv) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits here for the first's install
        if not _is_complete(venv):
            _install(venv, pins)
    return venv


if __name__ == "__main__":
    print(ensure_client_venv())
