"""resize, delete, shelve, stop and volume_migrate on a consumer's allocations."""

from __future__ import annotations

import os_traits
import pytest

from placement import conf as placement_conf
from placement.effects.base import RunEnv
from placement.effects.consumers import DELETE, SHELVE, STOP
from placement.effects.resize import RESIZE
from placement.effects.volume_migrate import VOLUME_MIGRATE

GONE = "8a3c1a39-5a5e-4a61-8f4c-6a0e7b8f2f10"


@pytest.fixture
def flavored(cloud, tmp_path):
    """The cloud's environment with ``[flavors]`` read from a config file."""
    path = tmp_path / "placement.conf"
    path.write_text("[flavors]\nm1.small = VCPU:1,MEMORY_MB:512\nm1.large = VCPU:8\n")
    conf = placement_conf.load(["--config-file", str(path)])
    return RunEnv(conf, cloud.engine, cloud.env.cancelled)


def test_resize_to_a_configured_flavor(cloud, flavored):
    node = cloud.node("n1", VCPU=4, MEMORY_MB=2048, DISK_GB=100)
    storage = cloud.node("storage", DISK_GB=100)
    vm = cloud.claim({node.uuid: {"VCPU": 2, "DISK_GB": 10}, storage.uuid: {"DISK_GB": 5}})
    params = {"resource_id": vm, "flavor": "m1.small"}
    assert cloud.run(RESIZE, params, flavored).state == "SUCCEEDED"
    assert cloud.held(vm) == {
        node.uuid: {"VCPU": 1, "MEMORY_MB": 512},
        storage.uuid: {"DISK_GB": 5},
    }
    again = cloud.run(RESIZE, params, flavored)
    assert (
        again.message
        == f"Action was skipped automatically: consumer {vm} already has flavor m1.small"
    )


def test_resize_inline_into_a_child_provider(cloud):
    node = cloud.node("n1", VCPU=4)
    gpu = cloud.node("n1-gpu", parent=node, VGPU=4)
    vm = cloud.claim({node.uuid: {"VCPU": 1}})
    assert cloud.run(RESIZE, {"resource_id": vm, "flavor": "VCPU:2,VGPU:1"}).state == "SUCCEEDED"
    assert cloud.held(vm) == {node.uuid: {"VCPU": 2}, gpu.uuid: {"VGPU": 1}}


@pytest.mark.parametrize(
    "flavor,message",
    [
        (
            "m1.large",
            "Action failed in execute: Unable to create allocation for 'VCPU' on "
            "resource provider '{node}'. The requested amount would exceed the capacity.",
        ),
        (
            "m1.tiny",
            "Action failed in pre_condition: unknown flavor or invalid resources 'm1.tiny'",
        ),
        ("VGPU:1", "Action failed in pre_condition: node n1 has no inventory of VGPU"),
    ],
)
def test_resize_that_does_not_fit_changes_nothing(cloud, flavored, flavor, message):
    node = cloud.node("n1", VCPU=4, MEMORY_MB=2048)
    vm = cloud.claim({node.uuid: {"VCPU": 2}})
    outcome = cloud.run(RESIZE, {"resource_id": vm, "flavor": flavor}, flavored)
    assert outcome.message == message.format(node=node.uuid)
    assert cloud.held(vm) == {node.uuid: {"VCPU": 2}}


def test_resize_of_a_gone_consumer_is_skipped(cloud):
    outcome = cloud.run(RESIZE, {"resource_id": GONE, "flavor": "VCPU:1"})
    assert (
        outcome.message == f"Action was skipped automatically: consumer {GONE} has no allocations"
    )


@pytest.mark.parametrize("action_type", [DELETE, SHELVE], ids=["delete", "shelve"])
def test_delete_and_shelve_release_everything(cloud, action_type):
    node = cloud.node("n1", VCPU=4)
    vm = cloud.claim({node.uuid: {"VCPU": 2}})
    assert cloud.run(action_type, {"resource_id": vm}).state == "SUCCEEDED"
    assert cloud.held(vm) == {}
    assert cloud.usage(node) == {"VCPU": 0}
    # Nothing left to stop: skipped, as upstream skips a stop of a server that is gone.
    assert cloud.run(STOP, {"resource_id": vm}).message == (
        f"Action was skipped automatically: consumer {vm} not found"
    )
    again = cloud.run(action_type, {"resource_id": vm})
    assert again.message == f"Action was skipped automatically: consumer {vm} has no allocations"


def test_stop_keeps_allocations(cloud):
    node = cloud.node("n1", VCPU=4)
    vm = cloud.claim({node.uuid: {"VCPU": 2}})
    assert cloud.run(STOP, {"resource_id": vm}).state == "SUCCEEDED"
    assert cloud.held(vm) == {node.uuid: {"VCPU": 2}}


def _volume(vm: str, destination: str | None) -> dict:
    params = {"resource_id": vm, "migration_type": "migrate"}
    if destination is not None:
        params["destination_node"] = destination
    return params


def test_volume_migrate_moves_the_shared_part(cloud):
    node = cloud.node("n1", VCPU=4)
    old = cloud.node("pool-a", DISK_GB=100)
    new = cloud.node("pool-b", DISK_GB=100)
    cloud.add_traits(old, os_traits.MISC_SHARES_VIA_AGGREGATE)
    vm = cloud.claim({node.uuid: {"VCPU": 1}, old.uuid: {"DISK_GB": 40}})
    assert cloud.run(VOLUME_MIGRATE, _volume(vm, "pool-b")).state == "SUCCEEDED"
    assert cloud.held(vm) == {node.uuid: {"VCPU": 1}, new.uuid: {"DISK_GB": 40}}
    again = cloud.run(VOLUME_MIGRATE, _volume(vm, "pool-b"))
    assert again.message == (
        f"Action was skipped automatically: consumer {vm} holds nothing on other sharing providers"
    )


@pytest.mark.parametrize(
    "destination,message",
    [
        (None, "Action failed in pre_condition: volume_migrate needs a destination_node here"),
        ("ghost", "Action failed in pre_condition: destination node ghost not found"),
        (
            "small",
            "Action failed in execute: Unable to create allocation for 'DISK_GB' on "
            "resource provider '{small}'. The requested amount would exceed the capacity.",
        ),
    ],
)
def test_volume_migrate_refusals_change_nothing(cloud, destination, message):
    old = cloud.node("pool-a", DISK_GB=100)
    small = cloud.node("small", DISK_GB=10)
    cloud.add_traits(old, os_traits.MISC_SHARES_VIA_AGGREGATE)
    vm = cloud.claim({old.uuid: {"DISK_GB": 40}})
    outcome = cloud.run(VOLUME_MIGRATE, _volume(vm, destination))
    assert outcome.message == message.format(small=small.uuid)
    assert cloud.held(vm) == {old.uuid: {"DISK_GB": 40}}
