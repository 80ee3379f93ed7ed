"""The applier rig as a pytest fixture, on every configured backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from placement.db import engine as db_engine
from placement.objects.actionplans import catalog
from tests import rig
from tests.applier.processes import Rig, applier_test_types


@pytest.fixture(params=rig.backends())
def applier_rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    with rig.migrated_database(request.param) as url:
        engine = db_engine.engine_from_url(url)
        try:
            catalog.sync_catalog(engine)
            applier_test_types.metadata.create_all(engine)
            test_rig = Rig(request.param, url, engine, tmp_path)
            try:
                yield test_rig
            finally:
                test_rig.stop_all()
        finally:
            engine.dispose()
