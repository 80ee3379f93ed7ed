"""A scratch virtualenv holding the OpenStack command-line clients.

The client scenarios drive the real ``openstack`` command (with the
osc-placement and python-watcherclient plugins) against our server. Those
packages must never go into the project's own venv (python-watcherclient and
osc-placement pull in half of OpenStack's libraries), so they live in their own
venv under ``~/.cache/placement-test-clients/``, named after a stamp of the
pinned versions: a later run, a parallel xdist worker or CI on the same machine
reuses it, and changing a pin builds a fresh one beside it. A file lock keeps
two processes from installing at once; a marker written last tells a finished
venv from one whose install was interrupted (:mod:`tests.scratchvenv`).

Run it to build the venv ahead of time and print its path, either as a
module from the repository root (``.venv/bin/python -m tests.clients.clientenv``)
or as a script from anywhere (``python3 tests/clients/clientenv.py``, which is
how ``scenario_lib.sh`` finds the venv when ``OSC_VENV`` is not set). It needs
only the standard library.
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    # Run as a script, the directory on sys.path is tests/clients/, not the
    # repository root that ``tests`` lives in.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests import scratchvenv  # noqa: E402

PINS: tuple[str, ...] = (
    "python-openstackclient==10.5.0",
    "python-watcherclient==4.11.0",
    "osc-placement==4.9.1",
)
"""What goes into the venv; the stamp (and so the venv's directory) follows it."""

CACHE_ROOT = Path.home() / ".cache" / "placement-test-clients"
INSTALL_TIMEOUT_S = 900
COMPLETE_MARKER = scratchvenv.COMPLETE_MARKER


def stamp(pins: tuple[str, ...] = PINS) -> str:
    """A short digest of the pins and the interpreter's minor version."""
    return scratchvenv.stamp(pins)


def venv_dir(pins: tuple[str, ...] = PINS) -> Path:
    return CACHE_ROOT / f"venv-{stamp(pins)}"


def _is_complete(venv: Path) -> bool:
    return scratchvenv.has_marker(venv) and (venv / "bin" / "openstack").is_file()


def ensure_client_venv(pins: tuple[str, ...] = PINS) -> Path:
    """Return the venv with the pinned clients, installing it on first use."""
    return scratchvenv.ensure(
        venv_dir(pins), pins, timeout=INSTALL_TIMEOUT_S, is_complete=_is_complete
    )


if __name__ == "__main__":
    print(ensure_client_venv())
