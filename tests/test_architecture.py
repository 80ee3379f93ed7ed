"""The import rules of ARCHITECTURE.md, checked on every module of ``placement/``.

Each module's imports are read from its syntax tree (nothing is imported),
including imports inside functions; imports under ``if TYPE_CHECKING:`` only
name types and are skipped. A module follows the rule of the longest package
path in :data:`RULES` that contains it. The checker is tried first on a small
made-up package that breaks each kind of rule, so a checker that silently
passes everything would fail here.

The same reading checks the rule of ``tests/``: no module imports a ``test_*``
module or a ``conftest``; shared helpers live in fixture modules.
"""

from __future__ import annotations

import ast
import pathlib
import sys
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "placement"

#: Third-party names the web and database layers are made of.
_SQL = ("sqlalchemy", "alembic")
_WEB = ("falcon", "webob", "keystonemiddleware")
_OSLO = ("oslo_config", "oslo_context", "oslo_middleware", "oslo_policy", "oslo_utils")
_OSLO_WEB = ("oslo_policy", "oslo_middleware")


@dataclass(frozen=True)
class Rule:
    """What the modules of one package may import.

    ``internal``: the ``placement`` packages and modules it may import besides
    itself (None: any). ``never``: third-party top-level names it must not
    import. ``third_party``: if not None, the only third-party names allowed.
    """

    internal: tuple[str, ...] | None
    never: tuple[str, ...] = ()
    third_party: tuple[str, ...] | None = None


_HANDLERS = (
    "placement.schemas",
    "placement.objects",
    "placement.candidates",
    "placement.filters",
    "placement.errors",
    "placement.microversion",
    "placement.policy",
    "placement.auth",
)
#: The object layer raises its own domain errors, never ``placement.errors``'
#: HTTP types (only the query-string grammar of ``placement/filters.py`` does).
_OBJECTS = (
    "placement.db",
    "placement.domain_errors",
    "placement.microversion",
    "placement.metrics",
)

#: ARCHITECTURE.md's tables, row by row.
RULES: dict[str, Rule] = {
    "placement": Rule(internal=()),
    "placement.errors": Rule(internal=("placement.microversion",), third_party=()),
    "placement.microversion": Rule(internal=(), third_party=()),
    "placement.domain_errors": Rule(internal=(), third_party=()),
    "placement.conf": Rule(
        internal=(
            "placement.actionplan_opts",
            "placement.flavor_opts",
            "placement.monitoring_opts",
        ),
        never=_SQL + _WEB,
    ),
    "placement.monitoring_opts": Rule(internal=(), never=_SQL + _WEB),
    "placement.metrics": Rule(internal=(), third_party=("prometheus_client", "sqlalchemy")),
    "placement.actionplan_opts": Rule(internal=("placement.actionplans",), never=_SQL + _WEB),
    "placement.flavor_opts": Rule(
        internal=("placement.errors", "placement.filters"), never=_SQL + _WEB
    ),
    "placement.filters": Rule(
        internal=("placement.errors", "placement.microversion"), never=_SQL + _WEB + _OSLO_WEB
    ),
    "placement.logs": Rule(internal=(), never=_SQL + _WEB),
    "placement.auth": Rule(internal=("placement.errors",), never=_SQL),
    "placement.keystone": Rule(internal=("placement.auth", "placement.conf"), never=_SQL),
    "placement.policy": Rule(internal=("placement.conf", "placement.errors"), never=_SQL + _WEB),
    "placement.schemas": Rule(internal=("placement.microversion",), never=_SQL + _WEB + _OSLO),
    "placement.db": Rule(internal=("placement.metrics",), never=_WEB + _OSLO),
    "placement.objects": Rule(internal=(*_OBJECTS, "placement.filters"), never=_WEB + _OSLO_WEB),
    "placement.candidates": Rule(
        internal=(*_OBJECTS, "placement.objects", "placement.filters", "placement.errors"),
        never=_WEB + _OSLO_WEB,
    ),
    # The engine's pure steps: its data types, the combination and the output.
    "placement.candidates.model": Rule(internal=("placement.filters",), third_party=()),
    "placement.candidates.combine": Rule(internal=("placement.candidates.model",), third_party=()),
    "placement.candidates.output": Rule(
        internal=("placement.candidates.model", "placement.microversion"), third_party=()
    ),
    "placement.handlers": Rule(internal=_HANDLERS, never=_SQL),
    # The console's static pages and the layer serving them, before auth.
    "placement.console": Rule(internal=("placement.auth", "placement.errors"), third_party=()),
    "placement.wsgi": Rule(internal=None),
    "placement.direct": Rule(internal=("placement.wsgi", "placement.conf")),
    "placement.cmd": Rule(internal=None),
    # The action-plan subsystem.
    # jsonschema checks parameters; croniter reads a recurring audit's cron interval.
    "placement.actionplans": Rule(
        internal=("placement.domain_errors",), third_party=("jsonschema", "croniter")
    ),
    "placement.objects.actionplans": Rule(
        internal=(
            *_OBJECTS,
            "placement.objects",
            "placement.actionplans",
            "placement.filters",
        ),
        never=_WEB + _OSLO_WEB,
    ),
    # The applier's act step: what each action type does, destinations from candidates.
    "placement.effects": Rule(
        internal=(
            *_OBJECTS,
            "placement.objects",
            "placement.candidates",
            "placement.actionplans",
            "placement.flavor_opts",
            # The executor's options: which types it loads, its waits, how Nova is reached.
            "placement.actionplan_opts",
            "placement.filters",
        ),
        never=_WEB + _OSLO_WEB,
    ),
    # The datasources' clients: what a metric strategy's queries read (Prometheus's HTTP API).
    "placement.datasources": Rule(
        internal=("placement.actionplans", "placement.actionplan_opts"),
        never=_SQL + _WEB + _OSLO_WEB,
    ),
    "placement.handlers.actionplans": Rule(
        internal=(
            *_HANDLERS,
            "placement.handlers",
            "placement.actionplans",
            "placement.actionplan_opts",
            "placement.effects",
            "placement.datasources",
        ),
        never=_SQL,
    ),
    "placement.applier": Rule(
        internal=(
            *_OBJECTS,
            "placement.objects",
            "placement.effects",
            "placement.errors",
            "placement.actionplans",
            "placement.actionplan_opts",
            "placement.conf",
        ),
        never=_WEB + _OSLO_WEB,
    ),
    # The audit runner: claims due audits, runs their strategy, stores the plans.
    "placement.auditrunner": Rule(
        internal=(*_OBJECTS, "placement.objects", "placement.actionplans"),
        never=_WEB + _OSLO_WEB,
    ),
}


@dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. placement.db.tables
    is_package: bool  # an __init__.py
    source: str


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def rule_for(name: str, rules: dict[str, Rule]) -> tuple[str, Rule] | None:
    """The rule of the longest package path containing ``name``; the rule of
    ``placement`` itself covers only ``placement/__init__.py``."""
    owners = [p for p in rules if _under(name, p) and (p != "placement" or name == p)]
    if not owners:
        return None
    owner = max(owners, key=len)
    return owner, rules[owner]


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def imported_names(module: Module, known: set[str]) -> set[str]:
    """The dotted names ``module`` imports; ``from a import b`` is ``a.b`` when
    that is a module in ``known``, else ``a``. Relative imports are resolved."""
    names: set[str] = set()
    for node in _import_nodes(ast.parse(module.source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parts = module.name.split(".")
            keep = len(parts) - node.level + (1 if module.is_package else 0)
            base = ".".join(parts[:keep] + ([base] if base else []))
        if node.module == "__future__":
            continue
        for alias in node.names:
            candidate = f"{base}.{alias.name}"
            names.add(candidate if candidate in known else base)
    return names


def violations(modules: list[Module], rules: dict[str, Rule]) -> list[str]:
    """One line per broken rule, and per module no rule covers."""
    known = {m.name for m in modules}
    stdlib = set(sys.stdlib_module_names)
    found = []
    for module in modules:
        owned = rule_for(module.name, rules)
        if owned is None:
            found.append(f"{module.name}: no rule covers it (add one to RULES)")
            continue
        owner, rule = owned
        for name in sorted(imported_names(module, known)):
            top = name.split(".")[0]
            if top == "placement":
                allowed = (
                    rule.internal is None
                    or name == "placement"
                    or _under(name, owner)
                    or any(_under(name, ok) for ok in rule.internal)
                )
                if not allowed:
                    found.append(f"{module.name} imports {name}")
            elif top in stdlib:
                continue
            elif top in rule.never or (
                rule.third_party is not None and top not in rule.third_party
            ):
                found.append(f"{module.name} imports {name}")
    return found


def _dotted(path: pathlib.Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def modules_under(directory: pathlib.Path) -> list[Module]:
    modules = []
    for path in sorted(directory.rglob("*.py")):
        name, is_package = _dotted(path)
        modules.append(Module(name, is_package, path.read_text(encoding="utf-8")))
    return modules


def _is_test_or_conftest(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def shared_from_tests(modules: list[Module]) -> list[str]:
    """Imports of a ``test_*`` module or a ``conftest`` by another module:
    what tests share belongs in a fixture module (``tests/rig.py`` and kin)."""
    known = {m.name for m in modules}
    return [
        f"{module.name} imports {name}"
        for module in modules
        for name in sorted(imported_names(module, known))
        if name in known and _is_test_or_conftest(name) and name != module.name
    ]


# --- the checker can fail ----------------------------------------------------

_BROKEN = [
    Module("placement", True, ""),
    Module("placement.db", True, ""),
    Module("placement.db.tables", False, "import sqlalchemy\n"),
    Module("placement.db.bad", False, "from placement.objects import thing\n"),
    Module("placement.objects", True, ""),
    Module("placement.objects.thing", False, "from ..db import tables\nimport falcon\n"),
    Module("placement.handlers", True, ""),
    Module(
        "placement.handlers.area",
        False,
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import sqlalchemy\n"
        "def on_get():\n    from placement.db import tables\n",
    ),
    Module("placement.actionplans", True, ""),
    Module("placement.actionplans.plan", False, "import jsonschema\nimport oslo_config.cfg\n"),
    Module("placement.unruled", False, ""),
]


def test_the_checker_reports_each_kind_of_broken_rule() -> None:
    assert violations(_BROKEN, RULES) == [
        "placement.db.bad imports placement.objects.thing",
        "placement.objects.thing imports falcon",
        "placement.handlers.area imports placement.db.tables",
        "placement.actionplans.plan imports oslo_config.cfg",
        "placement.unruled: no rule covers it (add one to RULES)",
    ]


def test_relative_imports_resolve_against_the_package() -> None:
    known = {"placement.db.tables", "placement.objects.thing"}
    inside_package = Module("placement.objects", True, "from . import thing\n")
    inside_module = Module("placement.objects.thing", False, "from ..db import tables\n")
    assert imported_names(inside_package, known) == {"placement.objects.thing"}
    assert imported_names(inside_module, known) == {"placement.db.tables"}


# --- the real package --------------------------------------------------------


def test_every_module_follows_the_import_rules() -> None:
    assert violations(modules_under(PACKAGE), RULES) == []


def test_the_shared_import_check_reports_test_and_conftest_imports() -> None:
    modules = [
        Module("tests.area.conftest", False, "def helper(): pass\n"),
        Module("tests.area.test_one", False, "def test_x(): pass\n"),
        Module("tests.area.helpers", False, "def shared(): pass\n"),
        Module(
            "tests.area.test_two",
            False,
            "from tests.area.conftest import helper\n"
            "from tests.area.test_one import test_x\n"
            "from tests.area.helpers import shared\n",
        ),
    ]
    assert shared_from_tests(modules) == [
        "tests.area.test_two imports tests.area.conftest",
        "tests.area.test_two imports tests.area.test_one",
    ]


def test_tests_share_helpers_through_fixture_modules_only() -> None:
    assert shared_from_tests(modules_under(ROOT / "tests")) == []


@pytest.mark.parametrize("package", sorted(RULES))
def test_architecture_md_names_every_rule(package: str) -> None:
    """The table a reader sees and the rules checked here name the same paths."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    path = package.replace(".", "/")
    assert f"`{path}/`" in text or f"`{path}.py`" in text or package == "placement"


# --- no upward edge ----------------------------------------------------------

#: The layers, bottom first. A module may import from its own layer and those
#: below it, never from one above, whatever :data:`RULES` allow. A module is in
#: the layer of the longest prefix naming it: ``placement`` (the bottom) holds
#: the pure and leaf modules (errors, microversion, filters, the option modules,
#: schemas, auth, policy, the pure action-plan package, ...).
Layers = tuple[tuple[str, tuple[str, ...]], ...]

LAYERS: Layers = (
    ("pure", ("placement",)),
    ("db", ("placement.db",)),
    ("objects", ("placement.objects",)),
    ("candidates", ("placement.candidates",)),
    ("effects", ("placement.effects", "placement.datasources")),
    ("handlers", ("placement.handlers", "placement.applier", "placement.auditrunner")),
    ("wsgi", ("placement.wsgi", "placement.direct")),
    ("cmd", ("placement.cmd",)),
)


def layer_of(name: str, layers: Layers) -> int:
    """The index in ``layers`` of the layer whose longest prefix contains ``name``."""
    owners = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(layers)
        for prefix in prefixes
        if _under(name, prefix)
    ]
    return max(owners)[1]


def upward_edges(modules: list[Module], layers: Layers) -> list[str]:
    """One line per import of a ``placement`` module from a layer above the importer's."""
    known = {m.name for m in modules}
    found = []
    for module in modules:
        own = layer_of(module.name, layers)
        for name in sorted(imported_names(module, known)):
            if _under(name, "placement") and layer_of(name, layers) > own:
                above = layers[layer_of(name, layers)][0]
                found.append(f"{module.name} imports {name} ({layers[own][0]} below {above})")
    return found


def test_the_layer_check_reports_each_upward_edge() -> None:
    modules = [
        Module("placement.filters", False, "from placement.db import tables\n"),
        Module("placement.db.tables", False, "from placement import metrics\n"),
        Module("placement.metrics", False, ""),
        Module("placement.objects.thing", False, "from placement.candidates import engine\n"),
        Module("placement.candidates.engine", False, "from placement.objects import thing\n"),
        Module(
            "placement.effects.move",
            False,
            "from placement.candidates import engine\nfrom placement.applier import service\n",
        ),
        Module("placement.applier.service", False, "from placement.effects import move\n"),
        Module("placement.cmd.run", False, "from placement.applier import service\n"),
    ]
    assert upward_edges(modules, LAYERS) == [
        "placement.filters imports placement.db.tables (pure below db)",
        "placement.objects.thing imports placement.candidates.engine (objects below candidates)",
        "placement.effects.move imports placement.applier.service (effects below handlers)",
    ]


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert upward_edges(modules_under(PACKAGE), LAYERS) == []


# --- errors have one owner ---------------------------------------------------

#: Names a handler module binds to error modules: ``placement.errors`` (HTTP)
#: and the domain errors of the layers below.
_ERROR_MODULES = ("errors", "exceptions", "domain")


def caught_errors(module: Module) -> list[str]:
    """``except`` clauses of ``module`` that name a type of an error module.

    A handler answers the errors from below through ``base.answering`` and
    its tables; catching them to raise another error re-words them by hand.
    """
    found = []
    for node in ast.walk(ast.parse(module.source)):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            for part in ast.walk(node.type):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id in _ERROR_MODULES
                ):
                    found.append(f"{module.name}:{node.lineno} catches {part.value.id}.{part.attr}")
    return found


def test_the_catch_check_reports_caught_error_types() -> None:
    module = Module(
        "placement.handlers.area",
        False,
        "try:\n    pass\nexcept ValueError:\n    pass\n"
        "try:\n    pass\nexcept (errors.Conflict, exceptions.InUse):\n    pass\n",
    )
    assert caught_errors(module) == [
        "placement.handlers.area:7 catches errors.Conflict",
        "placement.handlers.area:7 catches exceptions.InUse",
    ]


def test_handlers_answer_errors_from_below_by_table_only() -> None:
    """Besides the one helper (``handlers/base.py``) and the /v1 preamble's
    use of it, no handler catches an error type to re-word it."""
    shared = {"placement.handlers.base", "placement.handlers.actionplans.preamble"}
    handlers = [m for m in modules_under(PACKAGE / "handlers") if m.name not in shared]
    assert [found for module in handlers for found in caught_errors(module)] == []


# --- function size: every exception says why ---------------------------------

_SIZE_CODES = ("C901", "PLR0915")


def unexplained_size_exceptions(module: Module) -> list[str]:
    """``# noqa`` for a size rule on a line that no comment line explains
    (the comment right above the ``def``, its decorators skipped)."""
    lines = module.source.splitlines()
    found = []
    for number, line in enumerate(lines):
        noqa = line.partition("# noqa:")[2]
        if not any(code in noqa for code in _SIZE_CODES):
            continue
        above = number - 1
        while above >= 0 and lines[above].lstrip().startswith("@"):
            above -= 1
        if above < 0 or not lines[above].lstrip().startswith("#"):
            found.append(f"{module.name}:{number + 1}")
    return found


def test_the_size_check_reports_an_exception_without_its_reason() -> None:
    module = Module(
        "placement.area",
        False,
        "# Kept whole: a call per row costs more than it saves.\n"
        "def explained():  # noqa: PLR0915\n    pass\n"
        "\n@decorated\ndef bare():  # noqa: C901\n    pass\n"
        "def other():  # noqa: E501\n    pass\n",
    )
    assert unexplained_size_exceptions(module) == ["placement.area:6"]


def test_every_size_exception_in_the_package_says_why() -> None:
    """ARCHITECTURE.md, *Function size*: an exception is granted where
    splitting would cost, and the comment above the function says what."""
    modules = modules_under(PACKAGE)
    assert [found for module in modules for found in unexplained_size_exceptions(module)] == []
