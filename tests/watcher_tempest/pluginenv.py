"""The scratch venv holding tempest and watcher-tempest-plugin, Watcher's own test suite.

Like the Nova and Keystone venvs (:mod:`tests.nova.novaenv`), it lives under
``~/.cache/placement-test-nova/``, named after a stamp of its pins, and never
in ``.venv``: tempest pulls in half of OpenStack with pins of its own. Run as a
script to build it ahead of time: ``python -m tests.watcher_tempest.pluginenv``.
"""

from __future__ import annotations

from pathlib import Path

from tests.nova import novaenv

PINS: tuple[str, ...] = (
    "tempest==47.0.0",
    "watcher-tempest-plugin==3.9.0",
)


def plugin_venv() -> Path:
    """The venv with tempest and the plugin, installed on first use."""
    return novaenv.ensure_venv("watcher-tempest", PINS)


if __name__ == "__main__":
    print(plugin_venv())
