"""The allocation, consumer and reshaper object layer, called directly."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from placement.db import tables
from placement.db.transaction import reader
from placement.objects import allocation, claim, claim_consumers, exceptions, reshaper
from placement.objects import consumer as consumer_obj
from tests.apiclient import new_uuid


def _write(consumer: str, allocations: dict, **kwargs) -> claim_consumers.ConsumerWrite:
    return claim_consumers.ConsumerWrite(consumer, "project", "user", allocations, **kwargs)


def test_replace_then_read_both_ways(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(DISK_GB={"total": 100})
    consumer = new_uuid()
    claim.replace(
        api.engine,
        [_write(consumer, {a: {"VCPU": 2}, b: {"DISK_GB": 10}}, consumer_type="INSTANCE")],
        attempts=3,
    )

    held = allocation.get_for_consumer(api.engine, consumer)
    assert {rp: share.resources for rp, share in held.providers.items()} == {
        a: {"VCPU": 2},
        b: {"DISK_GB": 10},
    }
    assert (held.project_id, held.user_id, held.generation, held.consumer_type) == (
        "project",
        "user",
        1,
        "INSTANCE",
    )
    assert held.providers[a].generation == api.generation(a)
    assert held.last_modified is not None

    on_b = allocation.get_for_provider(api.engine, b)
    assert on_b.generation == api.generation(b)
    assert {c: (s.generation, s.resources) for c, s in on_b.consumers.items()} == {
        consumer: (1, {"DISK_GB": 10})
    }


def test_reads_of_nothing(api):
    assert allocation.get_for_consumer(api.engine, "not a consumer") is None
    assert allocation.get_for_provider(api.engine, new_uuid()) is None
    empty = allocation.get_for_provider(api.engine, api.provider())
    assert (empty.consumers, empty.last_modified) == ({}, None)


def test_untyped_consumer_reads_as_unknown(api):
    a = api.provider(VCPU={"total": 8})
    consumer = new_uuid()
    claim.replace(api.engine, [_write(consumer, {a: {"VCPU": 1}})], attempts=3)
    assert (
        allocation.get_for_consumer(api.engine, consumer).consumer_type == consumer_obj.UNKNOWN_TYPE
    )


def test_delete_for_consumer(api):
    a = api.provider(VCPU={"total": 8})
    consumer = new_uuid()
    claim.replace(api.engine, [_write(consumer, {a: {"VCPU": 1}})], attempts=3)
    allocation.delete_for_consumer(api.engine, consumer)
    assert allocation.get_for_consumer(api.engine, consumer) is None
    with pytest.raises(exceptions.NoAllocations):
        allocation.delete_for_consumer(api.engine, consumer)


def test_domain_errors(api):
    a = api.provider(VCPU={"total": 2})
    with pytest.raises(exceptions.ResourceClassNotFound) as unknown:
        claim.replace(
            api.engine, [_write(new_uuid(), {a: {"CUSTOM_A": 1, "CUSTOM_B": 1}})], attempts=3
        )
    assert unknown.value.message == "No such resource class CUSTOM_A."
    with pytest.raises(exceptions.InvalidAllocation, match="exceed the capacity"):
        claim.replace(api.engine, [_write(new_uuid(), {a: {"VCPU": 3}})], attempts=3)
    with pytest.raises(exceptions.StaleGeneration, match="expected null but got 4"):
        claim.replace(api.engine, [_write(new_uuid(), {a: {"VCPU": 1}}, generation=4)], attempts=3)


def test_owner_rows_are_created_once(api):
    first = consumer_obj.owner_ids(api.engine, "shared-project", "shared-project", "SHARED")
    assert consumer_obj.owner_ids(api.engine, "shared-project", "shared-project", "SHARED") == first
    project, user, consumer_type = consumer_obj.owner_ids(
        api.engine, "shared-project", "other-user"
    )
    assert (project, consumer_type) == (first[0], None) and user != first[1]
    with reader(api.engine) as conn:
        assert (
            conn.execute(
                select(func.count())
                .select_from(tables.projects)
                .where(tables.projects.c.external_id == "shared-project")
            ).scalar()
            == 1
        )


def test_reshape_failure_changes_nothing(api):
    root = api.provider(VCPU={"total": 8}, VGPU={"total": 2})
    child = api.provider(parent=root)
    holder, newcomer = new_uuid(), new_uuid()
    claim.replace(api.engine, [_write(holder, {root: {"VGPU": 1}})], attempts=3)
    generations = api.generation(root), api.generation(child)
    # The child gets VGPU and the newcomer lands there, but the root's final
    # inventory drops VGPU that the holder still uses: everything rolls back.
    with pytest.raises(exceptions.InventoryInUse):
        reshaper.reshape(
            api.engine,
            {
                root: reshaper.InventoryChange(generations[0], {"VCPU": {"total": 8}}),
                child: reshaper.InventoryChange(generations[1], {"VGPU": {"total": 2}}),
            },
            [_write(newcomer, {child: {"VGPU": 1}}, generation=None)],
            attempts=3,
        )
    assert (api.generation(root), api.generation(child)) == generations
    assert api.usage(child) == {}
    assert allocation.get_for_consumer(api.engine, newcomer) is None
    assert allocation.get_for_consumer(api.engine, holder).generation == 1


def _consumer_row(api, consumer: str):
    c = tables.consumers
    with reader(api.engine) as conn:
        return conn.execute(
            select(c.c.generation, c.c.created_at, c.c.updated_at).where(c.c.uuid == consumer)
        ).one()


def test_every_consumer_write_sets_updated_at(api):
    """As upstream's insert-then-bump does: tools reading the table see when it changed."""
    a = api.provider(VCPU={"total": 8})
    consumer = new_uuid()
    claim.replace(api.engine, [_write(consumer, {a: {"VCPU": 1}})], attempts=3)
    created = _consumer_row(api, consumer)
    assert created.generation == 1
    assert created.updated_at is not None and created.updated_at >= created.created_at

    claim.replace(api.engine, [_write(consumer, {a: {"VCPU": 2}}, generation=1)], attempts=3)
    bumped = _consumer_row(api, consumer)
    assert bumped.generation == 2 and bumped.updated_at >= created.updated_at

    moved = claim_consumers.ConsumerWrite(consumer, "other", "user", {a: {"VCPU": 2}}, generation=2)
    claim.replace(api.engine, [moved], attempts=3)
    owned = _consumer_row(api, consumer)
    assert owned.generation == 3 and owned.updated_at >= bumped.updated_at
