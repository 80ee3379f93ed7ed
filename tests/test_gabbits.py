"""Run every YAML file in ``gabbits/`` on every backend of this run.

Each file is a story of HTTP calls against a fresh database, run in-process
(gabbi's intercept) through the whole WSGI stack.
"""

from __future__ import annotations

import os

from gabbi import driver
from gabbi.driver import test_pytest  # noqa: F401  (pytest collects it)

from tests import gabbi_fixtures, rig

GABBITS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "gabbits")


class _Collector:
    """Stands in for pytest's metafunc so several backends can be combined."""

    def __init__(self, metafunc) -> None:
        self.config = metafunc.config
        self.function = metafunc.function
        self.argvalues: list = []
        self.ids: list = []

    def parametrize(self, argnames, argvalues, ids):
        self.argvalues.extend(argvalues)
        self.ids.extend(ids)


def pytest_generate_tests(metafunc):
    """Parametrize ``test_pytest`` with the YAML tests of each backend."""
    if metafunc.function is not test_pytest:
        return
    collector = _Collector(metafunc)
    for backend in rig.backends():
        driver.py_test_generator(
            GABBITS, intercept=gabbi_fixtures.current_app,
            fixture_module=gabbi_fixtures.fixture_module(backend),
            test_loader_name=f"gabbi-{backend}", metafunc=collector)
    metafunc.parametrize("test, result", argvalues=collector.argvalues, ids=collector.ids)
