"""Scratch virtualenvs for OpenStack software the tests run but must not import.

The client scenarios (``tests/clients/clientenv.py``) and the Nova cloud
(``tests/nova/novaenv.py``) each keep packages that pull in half of OpenStack
out of the project's venv, in venvs of their own under ``~/.cache/``, named
after a stamp of their pins: a later run, a parallel xdist worker or CI on the
same machine reuses one, and a changed pin builds a fresh one beside it. A file
lock keeps two processes from installing at once; a marker written last tells
a finished venv from one whose install was interrupted.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

COMPLETE_MARKER = "installed-pins.txt"


def stamp(pins: tuple[str, ...]) -> str:
    """A short digest of the pins and the interpreter's minor version."""
    text = "\n".join(sorted(pins)) + f"\npython{sys.version_info[0]}.{sys.version_info[1]}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def has_marker(venv: Path) -> bool:
    """Whether the install of ``venv`` ran to its end."""
    return (venv / COMPLETE_MARKER).is_file()


def _base_python() -> str:
    """The interpreter to build the venv from: the base one, not our venv's."""
    return getattr(sys, "_base_executable", None) or sys.executable


def _install(venv: Path, pins: tuple[str, ...], timeout: float) -> None:
    if venv.exists():  # left half-built by an interrupted run
        shutil.rmtree(venv)
    subprocess.run([_base_python(), "-m", "venv", str(venv)], check=True, timeout=120)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", *pins],
        check=True,
        timeout=timeout,
    )
    (venv / COMPLETE_MARKER).write_text("\n".join(pins) + "\n")


def ensure(
    venv: Path,
    pins: tuple[str, ...],
    *,
    timeout: float,
    is_complete: Callable[[Path], bool] = has_marker,
) -> Path:
    """Return ``venv`` with ``pins`` installed, installing it on first use."""
    if is_complete(venv):
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(str(venv) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits here for the first's install
        if not is_complete(venv):
            _install(venv, pins, timeout)
    return venv
