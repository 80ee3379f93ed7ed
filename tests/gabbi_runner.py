"""Turn every YAML file in ``gabbits/`` into pytest items for one backend.

Each ``tests/test_gabbits_<backend>.py`` module calls :func:`generate`, so
pytest-xdist (``--dist loadfile``) can run the backends side by side while
keeping each file's tests in order on one worker.
"""

from __future__ import annotations

import os

from gabbi import driver

from tests import gabbi_fixtures, rig

GABBITS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "gabbits")


def generate(metafunc, backend: str) -> None:
    """Parametrize ``test_pytest`` with the YAML tests, if ``backend`` is on."""
    if metafunc.function is not driver.test_pytest:
        return
    if backend not in rig.backends():
        metafunc.parametrize("test, result", [], ids=[])
        return
    driver.py_test_generator(
        GABBITS,
        intercept=gabbi_fixtures.current_app,
        fixture_module=gabbi_fixtures.fixture_module(backend),
        test_loader_name=f"gabbi-{backend}",
        metafunc=metafunc,
    )
