"""The Nova cloud on our Placement, started once per run: every file of ``tests/nova/``
goes to the same xdist worker (``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.nova import cloud


@pytest.fixture(scope="session")
def nova_cloud() -> Iterator[cloud.Cloud]:
    """Keystone, our Placement and Nova with three fake computes (see ``cloud.py``)."""
    with cloud.running() as running:
        yield running
