"""Scratch virtualenvs holding Nova and Keystone for the Nova cloud tests.

Nova and Keystone must never go into the project's own venv (they pull in
most of OpenStack, with pins of their own), and they do not share one venv
well either, so each lives in a venv of its own under
``~/.cache/placement-test-nova/``, named after a stamp of its pinned
requirements, as :mod:`tests.clients.clientenv` does for the client venv: a
later run or CI on the same machine reuses it, a changed pin builds a fresh one
beside it, a file lock keeps two processes from installing at once and a marker
written last tells a finished venv from an interrupted one.

Run as a script to build both ahead of time: ``python -m tests.nova.novaenv``.
"""

from __future__ import annotations

from pathlib import Path

from tests import scratchvenv

NOVA_PINS: tuple[str, ...] = (
    "nova==34.0.0",
    # Nova 34's database layer is not ready for SQLAlchemy 2.1.
    "SQLAlchemy<2.1",
    # Nova's databases are on MariaDB (SQLite does not stand several services).
    "PyMySQL==1.1.2",
    "gunicorn==23.0.0",
)
KEYSTONE_PINS: tuple[str, ...] = (
    "keystone==30.0.0",
    "gunicorn==23.0.0",
)

CACHE_ROOT = Path.home() / ".cache" / "placement-test-nova"
INSTALL_TIMEOUT_S = 1500


def venv_dir(name: str, pins: tuple[str, ...]) -> Path:
    return CACHE_ROOT / f"{name}-{scratchvenv.stamp(pins)}"


def ensure_venv(name: str, pins: tuple[str, ...]) -> Path:
    """Return the venv ``name`` with ``pins`` installed, installing it on first use."""
    return scratchvenv.ensure(venv_dir(name, pins), pins, timeout=INSTALL_TIMEOUT_S)


def nova_venv() -> Path:
    return ensure_venv("nova", NOVA_PINS)


def keystone_venv() -> Path:
    return ensure_venv("keystone", KEYSTONE_PINS)


if __name__ == "__main__":
    print(keystone_venv())
    print(nova_venv())
