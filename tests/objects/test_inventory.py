"""Inventories in the object layer: defaults, capacity, in-use removal, generations."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from placement import db
from placement.objects import exceptions
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from tests.rows import allocate


@pytest.fixture
def provider(engine) -> rp_obj.Provider:
    return rp_obj.create_provider(engine, name="host", uuid=str(uuid.uuid4()))


def _current(engine, provider: rp_obj.Provider) -> rp_obj.Provider:
    return rp_obj.find(engine, provider.uuid)


def _records(engine, provider: rp_obj.Provider) -> dict[str, dict]:
    return {rc: inv.record for rc, inv in inv_obj.list_for_provider(engine, provider).items()}


def test_defaults_fill_what_the_request_left_out(engine, provider):
    generation = inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 8}})
    assert generation == 1
    assert _records(engine, provider) == {
        "VCPU": {
            "total": 8,
            "reserved": 0,
            "min_unit": 1,
            "max_unit": inv_obj.MAX_INT,
            "step_size": 1,
            "allocation_ratio": 1.0,
        }
    }


def test_replacing_always_bumps_the_generation(engine, provider):
    inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 8}})
    again = inv_obj.set_inventories(engine, _current(engine, provider), {"VCPU": {"total": 8}})
    emptied = inv_obj.delete_all(engine, _current(engine, provider))
    nothing_left = inv_obj.delete_all(engine, _current(engine, provider))
    assert (again, emptied, nothing_left) == (2, 3, 4)


def test_replace_inside_a_callers_transaction(engine, provider):
    """What the reshaper does: several writes, one transaction, capacity unchecked."""
    with db.writer(engine) as conn:
        first = inv_obj.replace_inventories(
            conn, provider, {"VCPU": {"total": 2, "reserved": 5}}, check_capacity=False
        )
        bumped = dataclasses.replace(provider, generation=first)
        second = inv_obj.replace_inventories(
            conn, bumped, {"DISK_GB": {"total": 3}}, check_capacity=False
        )
    assert (first, second) == (1, 2)
    assert list(_records(engine, provider)) == ["DISK_GB"]


def test_a_stale_generation_writes_nothing(engine, provider):
    inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 8}})
    with pytest.raises(exceptions.ConcurrentUpdate):
        inv_obj.set_inventories(engine, provider, {"DISK_GB": {"total": 1}})
    assert list(_records(engine, provider)) == ["VCPU"]
    assert _current(engine, provider).generation == 1


@pytest.mark.parametrize(
    "record, may_equal, message",
    [
        ({"total": 4, "reserved": 4}, False, "greater than or equal to total."),
        ({"total": 4, "reserved": 5}, True, "greater than total."),
        ({"total": 4, "allocation_ratio": -1}, True, "greater than total."),
    ],
)
def test_capacity_must_be_left(engine, provider, record, may_equal, message):
    with pytest.raises(exceptions.InvalidCapacity) as caught:
        inv_obj.set_inventories(
            engine, provider, {"VCPU": record}, reserved_may_equal_total=may_equal
        )
    assert caught.value.message == (
        f"Invalid inventory for 'VCPU' on resource provider "
        f"'{provider.uuid}'. The reserved value is {message}"
    )


def test_reserved_may_equal_total_from_1_26(engine, provider):
    inv_obj.set_inventories(
        engine, provider, {"VCPU": {"total": 4, "reserved": 4}}, reserved_may_equal_total=True
    )
    assert _records(engine, provider)["VCPU"]["reserved"] == 4


def test_unknown_classes_are_named(engine, provider):
    with pytest.raises(
        exceptions.ResourceClassNotFound, match="^No such resource class CUSTOM_NOPE.$"
    ):
        inv_obj.set_inventories(engine, provider, {"CUSTOM_NOPE": {"total": 1}})
    assert _current(engine, provider).generation == 0


def test_removing_allocated_inventory_is_refused_and_rolled_back(engine, provider):
    inv_obj.set_inventories(
        engine,
        provider,
        {"VCPU": {"total": 8}, "DISK_GB": {"total": 9}, "MEMORY_MB": {"total": 512}},
    )
    allocate(engine, provider.uuid, {"VCPU": 1, "DISK_GB": 1})
    with pytest.raises(exceptions.InventoryInUse) as caught:
        inv_obj.set_inventories(engine, _current(engine, provider), {"MEMORY_MB": {"total": 1}})
    assert caught.value.message == (
        f"Inventory for 'VCPU, DISK_GB' on resource provider '{provider.uuid}' in use."
    )
    with pytest.raises(exceptions.InventoryInUse):
        inv_obj.delete_inventory(engine, _current(engine, provider), "DISK_GB")
    with pytest.raises(exceptions.InventoryInUse):
        inv_obj.delete_all(engine, _current(engine, provider))
    assert _records(engine, provider)["MEMORY_MB"]["total"] == 512
    assert _current(engine, provider).generation == 1


def test_shrinking_below_usage_is_allowed(engine, provider):
    inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 8}})
    allocate(engine, provider.uuid, {"VCPU": 6})
    inv_obj.update_inventory(
        engine, _current(engine, provider), "VCPU", {"total": 2}, reserved_may_equal_total=True
    )
    assert _records(engine, provider)["VCPU"]["total"] == 2


def test_one_class_at_a_time(engine, provider):
    assert (
        inv_obj.add_inventory(engine, provider, "VCPU", {"total": 2}, reserved_may_equal_total=True)
        == 1
    )
    with pytest.raises(exceptions.InventoryExists):
        inv_obj.add_inventory(
            engine, _current(engine, provider), "VCPU", {"total": 2}, reserved_may_equal_total=True
        )
    with pytest.raises(exceptions.ResourceClassNotFound, match="No such resource class CUSTOM_X"):
        inv_obj.add_inventory(
            engine,
            _current(engine, provider),
            "CUSTOM_X",
            {"total": 2},
            reserved_may_equal_total=True,
        )
    with pytest.raises(
        exceptions.NoInventoryOfClass, match="^No inventory of class DISK_GB found.$"
    ):
        inv_obj.update_inventory(
            engine,
            _current(engine, provider),
            "DISK_GB",
            {"total": 2},
            reserved_may_equal_total=True,
        )
    with pytest.raises(
        exceptions.ResourceClassNotFound, match="^No such resource class CUSTOM_X.$"
    ):
        inv_obj.update_inventory(
            engine,
            _current(engine, provider),
            "CUSTOM_X",
            {"total": 2},
            reserved_may_equal_total=True,
        )
    with pytest.raises(
        exceptions.NoInventoryOfClass, match="^No inventory of class DISK_GB found for delete$"
    ):
        inv_obj.delete_inventory(engine, _current(engine, provider), "DISK_GB")
    assert inv_obj.delete_inventory(engine, _current(engine, provider), "VCPU") == 2
    assert _records(engine, provider) == {}
