"""Installed action types: every built-in declaration with its effect, and plugins loaded,
or left out with a logged reason, from their entry points."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from placement.actionplans.action_types import BUILTIN
from placement.effects import base, registry

#: A plugin distribution: one good type (a class, instantiated without arguments)
#: beside three that must be left out.
_MODULE = """
from placement.actionplans.action_types import ActionTypeDeclaration
from placement.effects import base

DECLARATION = ActionTypeDeclaration("notify", {"type": "object"}, weight=45, parallelization=1)

class Notify:
    declaration = DECLARATION

    def run(self, conn, params, env):
        return base.succeeded()

class NoRun:
    declaration = DECLARATION

MISNAMED = Notify()
"""
_ENTRY_POINTS = """
[placement.actionplans.action_types]
notify = registry_test_plugin:Notify
no_run = registry_test_plugin:NoRun
misnamed = registry_test_plugin:MISNAMED
broken = registry_test_plugin:NOT_THERE
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[None]:
    """The plugin's module and ``.dist-info`` on ``sys.path``, as pip would install them."""
    (tmp_path / "registry_test_plugin.py").write_text(textwrap.dedent(_MODULE))
    info = tmp_path / "registry_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: registry-test-plugin\n")
    (info / "entry_points.txt").write_text(_ENTRY_POINTS)
    sys.path.insert(0, str(tmp_path))
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("registry_test_plugin", None)


def test_every_built_in_declaration_is_installed_with_its_effect():
    effects = registry.load_effects()
    assert {name: effects[name].declaration for name in BUILTIN} == dict(BUILTIN)


def test_a_plugin_type_is_installed_beside_the_built_in_ones(plugin):
    declarations = registry.installed_declarations()
    assert set(declarations) == set(BUILTIN) | {"notify"}
    assert declarations["notify"].weight == 45


def test_a_plugin_type_that_cannot_serve_is_left_out_with_its_reason(plugin, caplog):
    assert not {"no_run", "misnamed", "broken"} & set(registry.load_effects())
    logged = [record.getMessage() for record in caplog.records]
    assert any(m.startswith("Cannot load action type 'broken'") for m in logged)
    assert "Action type 'no_run' (registry_test_plugin:NoRun) lacks declaration or run" in logged
    assert "Action type 'misnamed' (registry_test_plugin:MISNAMED) declares the name 'notify'" in (
        logged
    )


#: What the nova executor performs: Nova's operations, and the two agnostic types.
NOVA_TYPES = {"change_nova_service_state", "delete", "migrate", "resize", "shelve", "stop"}


def test_the_nova_executor_loads_nova_s_types_with_the_same_declarations():
    effects = registry.load_effects("nova")
    assert set(effects) == NOVA_TYPES | {"nop", "sleep"}
    assert {name: e.declaration for name, e in effects.items()} == {
        name: BUILTIN[name] for name in effects
    }
    placement = registry.load_effects("placement")
    assert effects["nop"] is placement["nop"] and effects["sleep"] is placement["sleep"]


def test_the_nova_executor_never_writes_allocations_itself():
    """Nova's types run outside any transaction (``conn=None``): none can write our tables."""
    effects = registry.load_effects("nova")
    assert all(base.is_blocking(effects[name]) for name in NOVA_TYPES)
    assert all(
        type(effects[name]).__module__.startswith("placement.effects.nova") for name in NOVA_TYPES
    )


def test_the_configured_executor_chooses_the_set(tmp_path):
    from placement import conf as placement_conf

    path = tmp_path / "placement.conf"
    path.write_text("[watcher_applier]\nexecutor = nova\n")
    conf = placement_conf.load([], default_config_files=[str(path)])
    assert registry.executor(conf) == "nova"
    assert set(registry.installed_declarations(registry.executor(conf))) == NOVA_TYPES | {
        "nop",
        "sleep",
    }
