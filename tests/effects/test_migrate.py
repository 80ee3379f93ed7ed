"""migrate: moves, choices, skips, failures, and no overcommit while schedulers claim."""

from __future__ import annotations

import os_traits
import pytest

from placement.effects.migrate import MIGRATE
from tests import rig

SMALL = {"VCPU": 2, "MEMORY_MB": 512}


def _migrate(consumer: str, source: str, destination: str | None = None) -> dict:
    params = {"resource_id": consumer, "migration_type": "live", "source_node": source}
    if destination is not None:
        params["destination_node"] = destination
    return params


@pytest.mark.parametrize("by", ["name", "uuid"])
def test_moves_to_named_destination(cloud, by):
    src = cloud.node("src", VCPU=8, MEMORY_MB=4096)
    dst = cloud.node("dst", VCPU=8, MEMORY_MB=4096)
    vm = cloud.claim({src.uuid: SMALL})
    outcome = cloud.run(MIGRATE, _migrate(vm, getattr(src, by), getattr(dst, by)))
    assert (outcome.state, outcome.message) == ("SUCCEEDED", None)
    assert cloud.held(vm) == {dst.uuid: SMALL}
    assert cloud.usage(src) == {"VCPU": 0, "MEMORY_MB": 0}
    assert cloud.usage(dst) == SMALL
    assert cloud.provider(dst.uuid).generation == dst.generation + 1


def test_chooses_an_enabled_destination_with_room(cloud):
    src = cloud.node("src", VCPU=8, MEMORY_MB=4096)
    disabled = cloud.node("disabled", VCPU=8, MEMORY_MB=4096)
    cloud.add_traits(disabled, os_traits.COMPUTE_STATUS_DISABLED)
    cloud.node("full", VCPU=1, MEMORY_MB=4096)
    roomy = cloud.node("roomy", VCPU=8, MEMORY_MB=4096)
    vm = cloud.claim({src.uuid: SMALL})
    assert cloud.run(MIGRATE, _migrate(vm, "src")).state == "SUCCEEDED"
    assert cloud.held(vm) == {roomy.uuid: SMALL}


def test_only_the_source_tree_part_moves(cloud):
    src = cloud.node("src", VCPU=8)
    src_child = cloud.node("src-gpu", parent=src, VGPU=2)
    dst = cloud.node("dst", VCPU=8)
    dst_child = cloud.node("dst-gpu", parent=dst, VGPU=2)
    storage = cloud.node("storage", DISK_GB=100)
    vm = cloud.claim(
        {src.uuid: {"VCPU": 1}, src_child.uuid: {"VGPU": 1}, storage.uuid: {"DISK_GB": 10}}
    )
    assert cloud.run(MIGRATE, _migrate(vm, "src")).state == "SUCCEEDED"
    assert cloud.held(vm) == {
        dst.uuid: {"VCPU": 1},
        dst_child.uuid: {"VGPU": 1},
        storage.uuid: {"DISK_GB": 10},
    }


def test_done_already_is_skipped(cloud):
    src = cloud.node("src", VCPU=8, MEMORY_MB=4096)
    dst = cloud.node("dst", VCPU=8, MEMORY_MB=4096)
    vm = cloud.claim({src.uuid: SMALL})
    assert cloud.run(MIGRATE, _migrate(vm, "src", "dst")).state == "SUCCEEDED"
    again = cloud.run(MIGRATE, _migrate(vm, "src", "dst"))
    assert again.state == "SKIPPED"
    assert (
        again.message
        == f"Action was skipped automatically: consumer {vm} has no allocations on src"
    )
    assert cloud.held(vm) == {dst.uuid: SMALL}
    gone = "8a3c1a39-5a5e-4a61-8f4c-6a0e7b8f2f10"
    assert cloud.run(MIGRATE, _migrate(gone, "src")).state == "SKIPPED"


@pytest.mark.parametrize(
    "destination,message",
    [
        ("nowhere", "destination node nowhere not found"),
        ("off", "destination node off is disabled"),
        ("src", "destination node src is the source node's tree"),
        ("tiny", "destination node tiny cannot hold consumer {vm}"),
    ],
)
def test_refused_destination_changes_nothing(cloud, destination, message):
    src = cloud.node("src", VCPU=8, MEMORY_MB=4096)
    off = cloud.node("off", VCPU=8, MEMORY_MB=4096)
    cloud.add_traits(off, os_traits.COMPUTE_STATUS_DISABLED)
    cloud.node("tiny", VCPU=1, MEMORY_MB=4096)
    vm = cloud.claim({src.uuid: SMALL})
    outcome = cloud.run(MIGRATE, _migrate(vm, "src", destination))
    assert outcome.state == "FAILED"
    phase = "execute" if destination == "tiny" else "pre_condition"
    assert outcome.message == f"Action failed in {phase}: " + message.format(vm=vm)
    assert cloud.held(vm) == {src.uuid: SMALL}


def test_no_node_can_hold_it(cloud):
    src = cloud.node("src", VCPU=8, MEMORY_MB=4096)
    cloud.node("tiny", VCPU=1, MEMORY_MB=4096)
    vm = cloud.claim({src.uuid: SMALL})
    outcome = cloud.run(MIGRATE, _migrate(vm, "src"))
    assert outcome.message == f"Action failed in execute: no enabled node can hold consumer {vm}"
    assert cloud.held(vm) == {src.uuid: SMALL}


def test_unknown_source(cloud):
    outcome = cloud.run(MIGRATE, _migrate("8a3c1a39-5a5e-4a61-8f4c-6a0e7b8f2f10", "ghost"))
    assert outcome.message == "Action failed in pre_condition: source node ghost not found"


def test_schedulers_claiming_meanwhile_never_overcommit(cloud):
    """Claims race for the destination while consumers move onto it: whichever wins, the
    destination never holds more than its capacity and every consumer is in one place."""
    src = cloud.node("src", VCPU=64)
    dst = cloud.node("dst", VCPU=10)
    moving = [cloud.claim({src.uuid: {"VCPU": 2}}) for _ in range(4)]

    def work(i: int) -> str:
        if i < len(moving):
            return cloud.run(MIGRATE, _migrate(moving[i], "src", "dst")).state
        try:
            cloud.claim({dst.uuid: {"VCPU": 2}})
        except Exception as exc:  # a refused claim is a fine answer
            return type(exc).__name__
        return "CLAIMED"

    results = rig.run_together(len(moving) + 6, work)
    assert not [r for r in results if isinstance(r, BaseException)], results
    cloud.consistent()
    placed = [vm for vm in moving if cloud.held(vm) == {dst.uuid: {"VCPU": 2}}]
    stayed = [vm for vm in moving if cloud.held(vm) == {src.uuid: {"VCPU": 2}}]
    assert len(placed) + len(stayed) == len(moving)
    assert results[: len(moving)].count("SUCCEEDED") == len(placed)
    assert cloud.usage(dst)["VCPU"] == 2 * (len(placed) + results.count("CLAIMED")) <= 10
