"""The action-plan store as a pytest fixture, on every configured backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import rig
from tests.objects.actionplans.store import Store


@pytest.fixture(scope="module", params=rig.backends())
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    with rig.placement_app(request.param) as (app, _conf):
        yield Store(app, request.param)
