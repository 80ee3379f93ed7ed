"""Session-wide checks of the test rig."""

from __future__ import annotations

import os

import pytest

from tests import rig


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI both database servers must be named: no silent skips."""
    if os.environ.get("CI", "").lower() == "true":
        missing = [var for var in rig.SERVER_ENV.values() if not os.environ.get(var)]
        if missing:
            raise pytest.UsageError(f"CI=true but {', '.join(missing)} not set")


@pytest.fixture(params=rig.backends())
def backend(request: pytest.FixtureRequest) -> str:
    """Each test using this runs once per database backend of the run."""
    return request.param

