"""The pure layer imports only the standard library, jsonschema, itself and the
base of domain errors (``placement.domain_errors``, itself pure)."""

import ast
import pathlib
import sys

import placement.actionplans

PACKAGE = pathlib.Path(placement.actionplans.__file__).parent
ALLOWED_THIRD_PARTY = {"jsonschema"}


def _imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_no_database_http_or_configuration_imports():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for module in _imported_modules(path):
            top = module.split(".")[0]
            pure = module in ("placement.actionplans", "placement.domain_errors") or (
                module.startswith("placement.actionplans.")
            )
            if not (pure or top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY):
                offenders.append(f"{path.relative_to(PACKAGE)}: {module}")
    assert offenders == []
