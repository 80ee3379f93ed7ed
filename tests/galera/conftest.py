"""The Galera cluster and its HAProxy, started once per test session (per xdist worker)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.galera import cluster


@pytest.fixture(scope="session")
def galera() -> Iterator[tuple[cluster.Cluster, cluster.HAProxy]]:
    """Three MariaDB Galera nodes and HAProxy in front (see ``cluster.py``)."""
    reason = cluster.missing()
    if reason is not None:
        pytest.skip(f"no Galera cluster on this machine: {reason}")
    with cluster.running() as running:
        yield running


@pytest.fixture()
def database(galera) -> Iterator[list[str]]:
    """A fresh Placement database on the cluster: its URL through node 0, 1 and 2."""
    with cluster.placement_database(galera[0]) as urls:
        yield urls
