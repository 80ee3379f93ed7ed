"""``benchmarks/scale.py``'s bulk loader: the rows it writes make the cloud it
describes, and the API answers on that cloud as the benchmark expects (the
counts its report shows), claims and creates included (on PostgreSQL the
sequences were moved past the explicit ids)."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest

from benchmarks import scale
from tests import rig

NODES = 40


def test_the_rows_describe_the_cloud() -> None:
    cloud = scale.Cloud(NODES)
    classes = {"VCPU": 0, "MEMORY_MB": 1, "DISK_GB": 2, "VGPU": 3}
    traits = {name: n for n, name in enumerate(scale.NODE_TRAITS)}
    parts = {part.table: list(part.rows) for part in scale.cloud_rows(cloud, classes, traits)}
    gpus = NODES // scale.GPU_EVERY * scale.GPUS_PER_NODE
    providers = parts["resource_providers"]
    assert len(providers) == NODES + gpus
    assert [row[0] for row in providers] == list(range(1, NODES + gpus + 1))
    children = [row for row in providers if row[5] is not None]
    assert all(row[4] == row[5] and (row[5] - 1) % scale.GPU_EVERY == 0 for row in children)
    assert len(parts["inventories"]) == NODES * 3 + gpus
    assert len(parts["consumers"]) == NODES * scale.SERVERS_PER_NODE
    assert len(parts["allocations"]) == NODES * scale.SERVERS_PER_NODE * 3
    assert Counter(row[1] for row in parts["resource_provider_aggregates"]) == {
        az + 1: NODES // scale.AZ_COUNT for az in range(scale.AZ_COUNT)
    }
    by_trait = Counter(row[0] for row in parts["resource_provider_traits"])
    assert by_trait == {traits[name]: cloud.with_trait(name) for name in scale.NODE_TRAITS}
    # Every node holds 10 servers' worth, within its capacity.
    used = Counter((row[1], row[3]) for row in parts["allocations"] for _ in range(row[4]))
    assert used[(1, classes["VCPU"])] == scale.SERVERS_PER_NODE * scale.FLAVOR["VCPU"]


@pytest.fixture
def loaded_app(backend: str) -> Iterator:
    """Our app on a database the benchmark's loader filled."""
    from placement.wsgi import create_app

    with rig.migrated_database(backend) as url:
        loaded = scale.load_cloud(url, NODES)
        assert loaded.rows["allocations"] == NODES * scale.SERVERS_PER_NODE * 3
        app = create_app(rig.make_conf(url))
        try:
            yield app
        finally:
            app.placement_engine.dispose()


def expected_answers(cloud: scale.Cloud) -> dict[str, int]:
    """What each timed query answers on the cloud (all under the 1000 limit)."""
    return {
        "1 resources": cloud.nodes,
        "2 !COMPUTE_STATUS_DISABLED (nova)": cloud.nodes
        - cloud.with_trait("COMPUTE_STATUS_DISABLED"),
        "3 member_of AZ1": cloud.nodes // scale.AZ_COUNT,
        # Two isolated groups on a node's two pGPUs: both ways round.
        "4 + 2 VGPU isolate": cloud.gpu_nodes * 2,
        f"5 required {scale.RARE_TRAIT}": cloud.with_trait(scale.RARE_TRAIT),
        f"6 required {scale.RARE_TRAIT}, limit=100": min(
            cloud.with_trait(scale.RARE_TRAIT), scale.RARE_LIMIT
        ),
        "provider list": cloud.nodes,
    }


def test_the_api_answers_on_the_loaded_cloud(loaded_app) -> None:
    cloud = scale.Cloud(NODES)
    headers = {
        "X-Auth-Token": "admin",
        "Accept": "application/json",
        "OpenStack-API-Version": f"placement {scale.MICROVERSION}",
    }
    answered = {}
    for label, path in scale.QUERIES:
        reply = rig.request(loaded_app, "GET", path, headers)
        assert reply.status == 200, (label, reply.body[:500])
        answered[label] = scale.answers(path, reply.body)
    assert answered == expected_answers(cloud)


def test_claims_and_creates_work_after_the_load(loaded_app) -> None:
    body = scale.claim_body(scale.Cloud(NODES), random.Random(1))
    status, reply = rig.call(
        loaded_app, "PUT", f"/allocations/{uuid.uuid4()}", body, version=scale.MICROVERSION
    )
    assert status == 204, reply
    # New project, user, provider and trait: each table's id sequence moves on.
    body.update(project_id=uuid.uuid4().hex, user_id=uuid.uuid4().hex)
    status, reply = rig.call(
        loaded_app, "PUT", f"/allocations/{uuid.uuid4()}", body, version=scale.MICROVERSION
    )
    assert status == 204, reply
    status, reply = rig.call(loaded_app, "POST", "/resource_providers", {"name": "new"})
    assert status == 200, reply
    assert rig.call(loaded_app, "PUT", "/traits/CUSTOM_AFTER_LOAD")[0] == 201
