"""The Nova cloud on our Placement, started once per run: every file of ``tests/nova/``
goes to the same xdist worker (``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.nova import cloud, plans


@pytest.fixture(scope="session")
def nova_cloud() -> Iterator[cloud.Cloud]:
    """Keystone, our Placement and Nova with three fake computes (see ``cloud.py``)."""
    with cloud.running() as running:
        yield running


@pytest.fixture
def nova(nova_cloud: cloud.Cloud) -> Iterator[cloud.Cloud]:
    """The cloud; every compute service enabled again afterwards."""
    yield nova_cloud
    for service in plans.services(nova_cloud).values():
        if service["status"] != "enabled":
            nova_cloud.compute.put(
                f"/os-services/{service['id']}", json={"status": "enabled"}, microversion="2.53"
            )


@pytest.fixture(scope="session")
def small(nova_cloud: cloud.Cloud) -> str:
    """A flavor of 1 vCPU, 512 MB and 1 GB (``plans.SMALL``), made once per cloud."""
    return nova_cloud.create_flavor("exec-small", plans.VCPUS, plans.RAM_MB, plans.DISK_GB)
