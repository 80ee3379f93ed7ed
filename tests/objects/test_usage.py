"""Usages by provider and by project, with the 1.38 consumer type grouping."""

from __future__ import annotations

import uuid

import pytest

from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.objects import usage as usage_obj
from tests.rows import allocate


@pytest.fixture
def provider(engine) -> rp_obj.Provider:
    provider = rp_obj.create_provider(engine, name="host", uuid=str(uuid.uuid4()))
    inv_obj.set_inventories(
        engine,
        provider,
        {"VCPU": {"total": 64}, "MEMORY_MB": {"total": 65536}, "DISK_GB": {"total": 1000}},
    )
    return provider


@pytest.fixture
def usages(engine, provider) -> None:
    """Two typed instances, one migration, one untyped consumer, another project."""
    allocate(engine, provider.uuid, {"VCPU": 2, "MEMORY_MB": 512}, consumer_type="INSTANCE")
    allocate(engine, provider.uuid, {"VCPU": 4}, consumer_type="INSTANCE", user="other")
    allocate(engine, provider.uuid, {"VCPU": 1, "MEMORY_MB": 256}, consumer_type="MIGRATION")
    allocate(engine, provider.uuid, {"MEMORY_MB": 128})
    allocate(engine, provider.uuid, {"VCPU": 32}, project="elsewhere")


def test_provider_usages_list_every_inventoried_class(engine, provider, usages):
    assert usage_obj.provider_usages(engine, provider.id) == {
        "VCPU": 39,
        "MEMORY_MB": 896,
        "DISK_GB": 0,
    }


def test_project_usages(engine, usages):
    assert usage_obj.project_usages(engine, "proj") == {"VCPU": 7, "MEMORY_MB": 896}
    assert usage_obj.project_usages(engine, "proj", "other") == {"VCPU": 4}
    assert usage_obj.project_usages(engine, "nobody") == {}


def test_usages_grouped_by_consumer_type(engine, usages):
    assert usage_obj.project_usages_by_type(engine, "proj") == {
        "INSTANCE": {"VCPU": 6, "MEMORY_MB": 512, "consumer_count": 2},
        "MIGRATION": {"VCPU": 1, "MEMORY_MB": 256, "consumer_count": 1},
        "unknown": {"MEMORY_MB": 128, "consumer_count": 1},
    }


@pytest.mark.parametrize(
    "consumer_type, expected",
    [
        ("all", {"all": {"VCPU": 7, "MEMORY_MB": 896, "consumer_count": 4}}),
        ("unknown", {"unknown": {"MEMORY_MB": 128, "consumer_count": 1}}),
        ("MIGRATION", {"MIGRATION": {"VCPU": 1, "MEMORY_MB": 256, "consumer_count": 1}}),
        ("allx", {}),
    ],
)
def test_usages_of_one_consumer_type(engine, usages, consumer_type, expected):
    assert usage_obj.project_usages_by_type(engine, "proj", consumer_type=consumer_type) == expected


def test_usages_by_type_for_one_user(engine, usages):
    assert usage_obj.project_usages_by_type(engine, "proj", "other") == {
        "INSTANCE": {"VCPU": 4, "consumer_count": 1}
    }
    assert usage_obj.project_usages_by_type(engine, "nobody", consumer_type="all") == {}
