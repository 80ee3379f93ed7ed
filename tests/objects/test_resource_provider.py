"""Providers in the object layer: create, trees, re-parenting, delete, list filters."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, insert, select

from placement import filters
from placement import microversion as mv
from placement.db import reader, tables, writer
from placement.objects import aggregate as agg_obj
from placement.objects import exceptions
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from tests.rows import allocate


def _new(engine, name: str, parent: rp_obj.Provider | None = None) -> rp_obj.Provider:
    return rp_obj.create_provider(
        engine, name=name, uuid=str(uuid.uuid4()), parent_uuid=parent.uuid if parent else None
    )


def _reload(engine, provider: rp_obj.Provider) -> rp_obj.Provider:
    return rp_obj.find(engine, provider.uuid)


def test_a_root_is_its_own_root_and_children_inherit_it(engine):
    root = _new(engine, "root")
    child = _new(engine, "child", root)
    grandchild = _new(engine, "grandchild", child)
    assert (root.root_provider_uuid, root.parent_provider_uuid) == (root.uuid, None)
    assert (grandchild.root_provider_uuid, grandchild.parent_provider_uuid) == (
        root.uuid,
        child.uuid,
    )
    assert root.generation == child.generation == 0


def test_duplicates_name_what_is_taken_the_uuid_first(engine):
    first = _new(engine, "one")
    cases = [
        ("one", str(uuid.uuid4()), "Conflicting resource provider name: one already exists."),
        ("two", first.uuid, f"Conflicting resource provider uuid: {first.uuid} already exists."),
        ("one", first.uuid, f"Conflicting resource provider uuid: {first.uuid} already exists."),
    ]
    for name, new_uuid, message in cases:
        with pytest.raises(exceptions.DuplicateProvider) as caught:
            rp_obj.create_provider(engine, name=name, uuid=new_uuid)
        assert caught.value.message == message


def test_bad_parents_and_empty_names_are_refused(engine):
    own = str(uuid.uuid4())
    prefix = f'Unable to create resource provider "x", {own}: Object action create failed because: '
    with pytest.raises(exceptions.InvalidProvider, match="parent provider UUID does not exist"):
        rp_obj.create_provider(engine, name="x", uuid=own, parent_uuid=str(uuid.uuid4()))
    with pytest.raises(exceptions.InvalidProvider) as caught:
        rp_obj.create_provider(engine, name="x", uuid=own, parent_uuid=own)
    assert caught.value.message == prefix + (
        "parent provider UUID cannot be same as UUID. Please set parent provider UUID to None "
        "if there is no parent."
    )
    with pytest.raises(exceptions.InvalidProvider, match="name is required$"):
        rp_obj.create_provider(engine, name="", uuid=own)
    assert rp_obj.find(engine, own) is None


def test_before_1_37_a_parent_may_only_be_added(engine):
    root, other = _new(engine, "root"), _new(engine, "other")
    orphan = _new(engine, "orphan")
    adopted = rp_obj.update_provider(engine, orphan, name="orphan", parent_uuid=root.uuid)
    assert (adopted.parent_provider_uuid, adopted.root_provider_uuid) == (root.uuid, root.uuid)
    same = rp_obj.update_provider(engine, adopted, name="orphan", parent_uuid=root.uuid)
    assert same.parent_provider_uuid == root.uuid
    with pytest.raises(
        exceptions.InvalidProvider, match="re-parenting a provider is not currently"
    ):
        rp_obj.update_provider(engine, adopted, name="orphan", parent_uuid=other.uuid)
    with pytest.raises(
        exceptions.InvalidProvider, match="un-parenting a provider is not currently"
    ):
        rp_obj.update_provider(engine, adopted, name="orphan", parent_uuid=None)


def test_moving_a_subtree_rewrites_every_root_below_it(engine):
    old_root, new_root = _new(engine, "old"), _new(engine, "new")
    middle = _new(engine, "middle", old_root)
    leaf = _new(engine, "leaf", middle)
    moved = rp_obj.update_provider(
        engine, middle, name="middle", parent_uuid=new_root.uuid, allow_reparenting=True
    )
    assert moved.root_provider_uuid == new_root.uuid
    assert _reload(engine, leaf).root_provider_uuid == new_root.uuid
    assert _reload(engine, old_root).root_provider_uuid == old_root.uuid

    freed = rp_obj.update_provider(
        engine, moved, name="middle", parent_uuid=None, allow_reparenting=True
    )
    assert (freed.parent_provider_uuid, freed.root_provider_uuid) == (None, middle.uuid)
    assert _reload(engine, leaf).root_provider_uuid == middle.uuid
    assert freed.generation == middle.generation


def test_a_provider_cannot_move_below_itself(engine):
    top = _new(engine, "top")
    child = _new(engine, "child", top)
    grandchild = _new(engine, "grandchild", child)
    for target in (top, child, grandchild):
        with pytest.raises(exceptions.InvalidProvider, match="creating loop in the provider tree"):
            rp_obj.update_provider(
                engine,
                child if target is not top else top,
                name=(child if target is not top else top).name,
                parent_uuid=target.uuid,
                allow_reparenting=True,
            )


def test_renaming_to_a_taken_name_conflicts(engine):
    _new(engine, "taken")
    mine = _new(engine, "mine")
    with pytest.raises(exceptions.DuplicateProvider) as caught:
        rp_obj.update_provider(engine, mine, name="taken")
    assert caught.value.message == "Conflicting resource provider taken already exists."
    assert rp_obj.update_provider(engine, mine, name="").name == ""


def test_delete_refuses_parents_then_providers_with_allocations(engine):
    parent = _new(engine, "parent")
    child = _new(engine, "child", parent)
    inv_obj.set_inventories(engine, child, {"VCPU": {"total": 4}})
    allocate(engine, child.uuid, {"VCPU": 1})
    with pytest.raises(exceptions.ProviderHasChildren):
        rp_obj.delete_provider(engine, parent.uuid)
    with pytest.raises(exceptions.ProviderInUse):
        rp_obj.delete_provider(engine, child.uuid)
    with pytest.raises(exceptions.ProviderNotFound, match="found for delete$"):
        rp_obj.delete_provider(engine, str(uuid.uuid4()))


def test_delete_takes_inventories_traits_and_aggregates_along(engine):
    provider = _new(engine, "doomed")
    inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 4}, "DISK_GB": {"total": 9}})
    agg_obj.set_aggregates(
        engine, _reload(engine, provider), [str(uuid.uuid4())], increment_generation=False
    )
    traits = tables.traits
    with writer(engine) as conn:
        trait_id = conn.execute(
            select(traits.c.id).where(traits.c.name == "HW_CPU_X86_AVX")
        ).scalar_one()
        conn.execute(
            insert(tables.resource_provider_traits).values(
                trait_id=trait_id, resource_provider_id=provider.id
            )
        )
    rp_obj.delete_provider(engine, provider.uuid)
    with reader(engine) as conn:
        for table in (
            tables.inventories,
            tables.resource_provider_traits,
            tables.resource_provider_aggregates,
        ):
            count = conn.execute(
                select(func.count())
                .select_from(table)
                .where(table.c.resource_provider_id == provider.id)
            ).scalar()
            assert count == 0, table.name
        # Aggregates themselves outlive their members.
        assert (
            conn.execute(select(func.count()).select_from(tables.placement_aggregates)).scalar()
            == 1
        )


def test_increment_generation_is_a_compare_and_swap(engine):
    provider = _new(engine, "cas")
    with writer(engine) as conn:
        assert rp_obj.increment_generation(conn, provider.id, 0) == 1
    with pytest.raises(exceptions.ConcurrentUpdate) as caught, writer(engine) as conn:
        rp_obj.increment_generation(conn, provider.id, 0)
    assert caught.value.generation_of == "provider"
    assert _reload(engine, provider).generation == 1


# --- list filters ----------------------------------------------------------------


def _names(engine, **wanted) -> list[str]:
    return [p.name for p in rp_obj.list_providers(engine, rp_obj.ProviderFilters(**wanted))]


def test_filters_by_name_uuid_and_tree(engine):
    root = _new(engine, "root")
    child = _new(engine, "child", root)
    _new(engine, "alone")
    assert _names(engine) == ["root", "child", "alone"]
    assert _names(engine, name="child") == ["child"]
    assert _names(engine, uuid=root.uuid) == ["root"]
    assert _names(engine, in_tree=child.uuid) == ["root", "child"]
    assert _names(engine, in_tree=str(uuid.uuid4())) == []


def test_filters_by_aggregates(engine):
    agg_a, agg_b = str(uuid.uuid4()), str(uuid.uuid4())
    for name, aggs in (
        ("in_a", [agg_a]),
        ("in_b", [agg_b]),
        ("in_both", [agg_a, agg_b]),
        ("in_none", []),
    ):
        agg_obj.set_aggregates(engine, _new(engine, name), aggs, increment_generation=False)
    v = mv.Version(1, 32)

    def members(*values: str) -> list[str]:
        return _names(engine, member_of=filters.parse_member_of(list(values), v))

    assert members(f"in:{agg_a},{agg_b}") == ["in_a", "in_b", "in_both"]
    assert members(agg_a, agg_b) == ["in_both"]
    assert members(f"!{agg_a}") == ["in_b", "in_none"]
    assert members(agg_b, f"!{agg_a}") == ["in_b"]
    assert members(str(uuid.uuid4())) == []


def test_filters_by_traits(engine):
    traits = tables.traits
    with writer(engine) as conn:
        ids = dict(
            conn.execute(
                select(traits.c.name, traits.c.id).where(
                    traits.c.name.in_(["HW_CPU_X86_AVX", "HW_CPU_X86_SSE"])
                )
            ).all()
        )
    for name, names in (
        ("avx", ["HW_CPU_X86_AVX"]),
        ("sse", ["HW_CPU_X86_SSE"]),
        ("both", ["HW_CPU_X86_AVX", "HW_CPU_X86_SSE"]),
        ("plain", []),
    ):
        provider = _new(engine, name)
        with writer(engine) as conn:
            for trait in names:
                conn.execute(
                    insert(tables.resource_provider_traits).values(
                        trait_id=ids[trait], resource_provider_id=provider.id
                    )
                )

    def having(*values: str) -> list[str]:
        return _names(engine, traits=filters.parse_required(list(values), mv.Version(1, 39)))

    assert having("HW_CPU_X86_AVX") == ["avx", "both"]
    assert having("HW_CPU_X86_AVX,!HW_CPU_X86_SSE") == ["avx"]
    assert having("in:HW_CPU_X86_AVX,HW_CPU_X86_SSE") == ["avx", "sse", "both"]
    assert having("!HW_CPU_X86_AVX") == ["sse", "plain"]
    with pytest.raises(exceptions.TraitNotFound) as caught:
        having("CUSTOM_NOPE")
    assert caught.value.message == (
        'Invalid trait(s) in "required" parameter: No such trait(s): CUSTOM_NOPE.'
    )


def test_trait_filter_names_only_the_first_unknown_trait(engine):
    wanted = filters.parse_required(
        ["HW_CPU_X86_AVX,CUSTOM_NOPE,CUSTOM_ALSO_NOPE"], mv.Version(1, 22)
    )
    with pytest.raises(exceptions.TraitNotFound) as caught:
        _names(engine, traits=wanted)
    assert caught.value.message == (
        'Invalid trait(s) in "required" parameter: No such trait(s): CUSTOM_NOPE.'
    )


def test_filters_by_capacity_right_now(engine):
    small, big = _new(engine, "small"), _new(engine, "big")
    inv_obj.set_inventories(engine, small, {"VCPU": {"total": 4, "reserved": 1}})
    inv_obj.set_inventories(
        engine,
        big,
        {
            "VCPU": {
                "total": 8,
                "allocation_ratio": 2.0,
                "max_unit": 6,
                "step_size": 2,
                "min_unit": 2,
            },
            "DISK_GB": {"total": 100},
        },
    )
    allocate(engine, small.uuid, {"VCPU": 3})
    allocate(engine, big.uuid, {"VCPU": 10})

    def fitting(resources: dict[str, int]) -> list[str]:
        return _names(engine, resources=resources)

    assert fitting({"VCPU": 1}) == []  # small is full, 1 breaks big's min_unit
    assert fitting({"VCPU": 2}) == ["big"]
    assert fitting({"VCPU": 6}) == ["big"]  # 10 + 6 = 16 = 8 * 2.0
    assert fitting({"VCPU": 8}) == []  # over max_unit
    assert fitting({"VCPU": 3}) == []  # not a step
    assert fitting({"DISK_GB": 100, "VCPU": 4}) == ["big"]
    assert fitting({"MEMORY_MB": 1}) == []
    with pytest.raises(
        exceptions.ResourceClassNotFound,
        match="^Invalid resource class in resources "
        "parameter: No such resource class CUSTOM_NOPE.$",
    ):
        fitting({"CUSTOM_NOPE": 1})


def test_a_filter_nobody_passes_ends_the_search_before_later_ones_are_checked(engine):
    _new(engine, "plain")
    v = mv.Version(1, 39)
    nobody = [
        {"in_tree": str(uuid.uuid4())},
        {"traits": filters.parse_required(["HW_CPU_X86_AVX"], v)},
        {"member_of": filters.parse_member_of([str(uuid.uuid4())], v)},
    ]
    for first in nobody:
        assert _names(engine, resources={"CUSTOM_NOPE": 1}, **first) == []
    with pytest.raises(
        exceptions.ResourceClassNotFound, match="No such resource class CUSTOM_NOPE"
    ):
        _names(
            engine,
            resources={"CUSTOM_NOPE": 1},
            traits=filters.parse_required(["!HW_CPU_X86_AVX"], v),
        )
