"""One seeded private Prometheus for the datasource tests (``seeded.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import prometheus as prom
from tests.datasources.seeded import seeded


@pytest.fixture(scope="session")
def server() -> Iterator[prom.Prometheus]:
    if not prom.available():
        pytest.skip("Debian's prometheus is not installed")
    with seeded() as running:
        yield running
