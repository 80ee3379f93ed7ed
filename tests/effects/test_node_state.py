"""change_nova_service_state and the power actions: trait and reserved amounts, idempotent."""

from __future__ import annotations

import os_traits
import pytest

from placement.effects.power_state import (
    CHANGE_NODE_POWER_STATE,
    TURN_HOST_TO_ACPI_S3_STATE,
)
from placement.effects.service_state import CHANGE_NOVA_SERVICE_STATE
from placement.objects import exceptions
from tests import rig

DISABLED = os_traits.COMPUTE_STATUS_DISABLED


@pytest.mark.parametrize("off,on", [("disabled", "enabled"), ("down", "up")])
def test_service_state_toggles_the_disabled_trait(cloud, off, on):
    node = cloud.node("n1", VCPU=4)
    cloud.add_traits(node, "HW_CPU_X86_AVX")
    disable = {"resource_id": "n1", "state": off, "disabled_reason": "maintenance"}
    assert cloud.run(CHANGE_NOVA_SERVICE_STATE, disable).state == "SUCCEEDED"
    assert cloud.traits(node) == {"HW_CPU_X86_AVX", DISABLED}
    bumped = cloud.provider(node.uuid).generation
    again = cloud.run(CHANGE_NOVA_SERVICE_STATE, disable)
    assert again.message == f"Action was skipped automatically: node n1 is already {off}"
    assert cloud.provider(node.uuid).generation == bumped
    enable = {"resource_id": node.uuid, "state": on}
    assert cloud.run(CHANGE_NOVA_SERVICE_STATE, enable).state == "SUCCEEDED"
    assert cloud.traits(node) == {"HW_CPU_X86_AVX"}
    assert cloud.run(CHANGE_NOVA_SERVICE_STATE, enable).state == "SKIPPED"


def test_service_state_of_unknown_node(cloud):
    outcome = cloud.run(CHANGE_NOVA_SERVICE_STATE, {"resource_id": "ghost", "state": "down"})
    assert outcome.message == "Action failed in pre_condition: node ghost not found"


def test_power_off_serves_nothing_and_on_restores_exactly(cloud):
    node = cloud.node("n1", VCPU={"total": 8, "reserved": 1}, MEMORY_MB=1024)
    child = cloud.node("n1-gpu", parent=node, VGPU={"total": 4, "reserved": 2})
    off = {"resource_id": "n1", "state": "off"}
    assert cloud.run(CHANGE_NODE_POWER_STATE, off).state == "SUCCEEDED"
    for provider, totals in ((node, {"VCPU": 8, "MEMORY_MB": 1024}), (child, {"VGPU": 4})):
        assert {rc: i.reserved for rc, i in cloud.inventories(provider).items()} == totals
    with pytest.raises(exceptions.InvalidAllocation):
        cloud.claim({node.uuid: {"VCPU": 1}})
    again = cloud.run(TURN_HOST_TO_ACPI_S3_STATE, {"resource_id": node.uuid})
    assert again.message == f"Action was skipped automatically: node {node.uuid} is already off"
    on = {"resource_id": "n1", "state": "on"}
    assert cloud.run(CHANGE_NODE_POWER_STATE, on).state == "SUCCEEDED"
    assert {rc: i.reserved for rc, i in cloud.inventories(node).items()} == {
        "VCPU": 1,
        "MEMORY_MB": 0,
    }
    assert cloud.inventories(child)["VGPU"].reserved == 2
    assert cloud.run(CHANGE_NODE_POWER_STATE, on).message == (
        "Action was skipped automatically: node n1 is already on"
    )
    cloud.claim({node.uuid: {"VCPU": 7}})


def test_power_off_refuses_a_tree_with_allocations(cloud):
    node = cloud.node("n1", VCPU=8)
    child = cloud.node("n1-gpu", parent=node, VGPU=4)
    cloud.claim({child.uuid: {"VGPU": 1}})
    outcome = cloud.run(TURN_HOST_TO_ACPI_S3_STATE, {"resource_id": "n1"})
    assert outcome.message == "Action failed in pre_condition: node n1 still holds allocations"
    assert cloud.inventories(node)["VCPU"].reserved == 0


def test_power_of_unknown_node(cloud):
    outcome = cloud.run(CHANGE_NODE_POWER_STATE, {"resource_id": "ghost", "state": "on"})
    assert outcome.message == "Action failed in pre_condition: node ghost not found"


def test_power_off_racing_claims(cloud):
    """A claim and a power-off at once: either the claim lands and the power-off is refused,
    or the node goes off and the claim is refused; never both."""
    node = cloud.node("n1", VCPU=8)

    def work(i: int) -> str:
        if i == 0:
            return cloud.run(CHANGE_NODE_POWER_STATE, {"resource_id": "n1", "state": "off"}).state
        try:
            cloud.claim({node.uuid: {"VCPU": 1}})
        except exceptions.InvalidAllocation:
            return "REFUSED"
        return "CLAIMED"

    results = rig.run_together(5, work)
    claimed = results.count("CLAIMED")
    assert results[0] == ("FAILED" if claimed else "SUCCEEDED"), results
    assert cloud.usage(node).get("VCPU", 0) == claimed
