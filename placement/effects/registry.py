"""Installed action types, loaded from the entry-point group ``placement.actionplans.action_types``.

The built-in types are registered in the project's own ``pyproject.toml``;
another installed package adds or overrides a type by declaring an entry point
in the same group (name = action type, value = an :class:`~placement.effects.base.Effect`:
an object with a ``declaration`` of that name and ``run``; a class is
instantiated without arguments).
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

from placement.actionplans.action_types import ActionTypeDeclaration
from placement.effects.base import Effect

LOG = logging.getLogger(__name__)

GROUP = "placement.actionplans.action_types"


def load_effects() -> dict[str, Effect]:
    """Every installed action type by name; one that fails to load is logged and left out.

    Read afresh each time (a scan of the installed distributions' metadata), so
    the API knows the same types as an applier started after a package was installed.
    """
    effects: dict[str, Effect] = {}
    for entry in entry_points(group=GROUP):
        try:
            loaded = entry.load()
            effect = loaded() if isinstance(loaded, type) else loaded
        except Exception:  # a broken plugin must not stop the others
            LOG.exception("Cannot load action type %r (%s)", entry.name, entry.value)
            continue
        if not isinstance(effect, Effect):
            LOG.error("Action type %r (%s) lacks declaration or run", entry.name, entry.value)
            continue
        if effect.declaration.name != entry.name:
            LOG.error(
                "Action type %r (%s) declares the name %r",
                entry.name,
                entry.value,
                effect.declaration.name,
            )
            continue
        effects[entry.name] = effect
    return effects


def installed_declarations() -> dict[str, ActionTypeDeclaration]:
    """The declaration of every installed action type, for checking and planning an
    audit's actions before they are stored."""
    return {name: effect.declaration for name, effect in load_effects().items()}
