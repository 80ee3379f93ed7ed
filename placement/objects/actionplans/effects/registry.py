"""Action types, loaded from the entry-point group ``placement.actionplans.action_types``.

The built-in types are registered in the project's own ``pyproject.toml``;
another installed package adds or overrides a type by declaring an entry point
in the same group (name = action type, value = an object with ``name``,
``schema`` and ``run``; a class is instantiated without arguments).
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points
from typing import Any

from placement.objects.actionplans.effects.base import ActionType

LOG = logging.getLogger(__name__)

GROUP = "placement.actionplans.action_types"


def load_action_types() -> dict[str, ActionType]:
    """Every installed action type by name; one that fails to load is logged and left out."""
    types: dict[str, ActionType] = {}
    for entry in entry_points(group=GROUP):
        try:
            loaded = entry.load()
            action_type = loaded() if isinstance(loaded, type) else loaded
        except Exception:  # a broken plugin must not stop the others
            LOG.exception("Cannot load action type %r (%s)", entry.name, entry.value)
            continue
        if not isinstance(action_type, ActionType):
            LOG.error("Action type %r (%s) lacks name, schema or run", entry.name, entry.value)
            continue
        types[entry.name] = action_type
    return types


def installed_schemas() -> dict[str, dict[str, Any]]:
    """The input schema of every installed action type, for checking a plan before it is stored.

    Read afresh each time (a scan of the installed distributions' metadata), so
    the API knows the same types as an applier started after the package was installed.
    """
    return {name: action_type.schema for name, action_type in load_action_types().items()}
