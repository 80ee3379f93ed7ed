"""One private Prometheus for the datasource tests, its series pushed afresh for each
test module (``seeded.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import prometheus as prom
from tests.datasources.seeded import reseed, seeded


@pytest.fixture(scope="session")
def _prometheus() -> Iterator[prom.Prometheus]:
    if not prom.available():
        pytest.skip("Debian's prometheus is not installed")
    with seeded() as running:
        yield running


@pytest.fixture(scope="module")
def seeded_at(_prometheus: prom.Prometheus) -> float:
    """When this module's series were pushed."""
    return reseed(_prometheus)


@pytest.fixture(scope="module")
def server(_prometheus: prom.Prometheus, seeded_at: float) -> prom.Prometheus:
    """The Prometheus, holding series pushed for this module."""
    return _prometheus
