"""Installed action types, loaded per executor from an entry-point group.

``[watcher_applier] executor`` (``placement/actionplan_opts.py``) chooses the group:
``placement`` loads ``placement.actionplans.action_types`` (effects on
Placement's own data), ``nova`` loads ``placement.actionplans.action_types.nova``
(effects asked of Nova, plus the executor-agnostic ``nop`` and ``sleep``,
registered in both). An audit is checked against the same set the applier
runs, so a type the executor cannot perform is refused when the audit is
created.

The built-in types are registered in the project's own ``pyproject.toml``;
another installed package adds or overrides a type by declaring an entry point
in the group of the executor it works with (name = action type, value = an
:class:`~placement.effects.base.Effect`: an object with a ``declaration`` of
that name and ``run``; a class is instantiated without arguments).
"""

from __future__ import annotations

import logging
from importlib.metadata import entry_points

from oslo_config.cfg import ConfigOpts

from placement import actionplan_opts
from placement.actionplans.action_types import ActionTypeDeclaration
from placement.effects.base import Effect

LOG = logging.getLogger(__name__)

GROUP = "placement.actionplans.action_types"
#: The entry-point group of each executor's action types.
GROUPS = {actionplan_opts.PLACEMENT: GROUP, actionplan_opts.NOVA: f"{GROUP}.nova"}


def executor(conf: ConfigOpts) -> str:
    """The configured executor (``[watcher_applier] executor``)."""
    return actionplan_opts.executor(conf)


def load_effects(executor: str = actionplan_opts.PLACEMENT) -> dict[str, Effect]:
    """Every installed action type by name; one that fails to load is logged and left out.

    Read afresh each time (a scan of the installed distributions' metadata), so
    the API knows the same types as an applier started after a package was installed.
    """
    effects: dict[str, Effect] = {}
    for entry in entry_points(group=GROUPS[executor]):
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


def installed_declarations(
    executor: str = actionplan_opts.PLACEMENT,
) -> dict[str, ActionTypeDeclaration]:
    """The declaration of every action type ``executor`` can perform, for checking and
    planning an audit's actions before they are stored."""
    return {name: effect.declaration for name, effect in load_effects(executor).items()}
