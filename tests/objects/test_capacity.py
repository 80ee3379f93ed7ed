"""Pages of provider trees with usage (``placement/objects/capacity.py``), on every backend."""

from __future__ import annotations

import pytest
import sqlalchemy

from placement.filters import AggregateFilter, TraitFilter
from placement.objects import exceptions
from placement.objects.capacity import CapacityQuery, capacity_page
from tests.candidates import world as w


def _cloud() -> w.World:
    """Three trees: a host with two NUMA cells (one with a NIC), a full flat
    host, and a storage provider whose inventory is all reserved."""
    cloud = w.World()
    host = cloud.add(
        inventories={"MEMORY_MB": w.Inventory(7, reserved=1, allocation_ratio=1.5)},
        used={"MEMORY_MB": 4},
        traits={"HW_CPU_X86_AVX2"},
        aggregates={w.aggregate_uuid(1)},
    )
    numa0 = cloud.add(host.id, inventories={"VCPU": w.Inventory(8)}, used={"VCPU": 2})
    cloud.add(host.id, inventories={"VCPU": w.Inventory(8)})
    cloud.add(numa0.id, inventories={"SRIOV_NET_VF": w.Inventory(4)}, traits={"HW_NIC_SRIOV"})
    cloud.add(
        inventories={"VCPU": w.Inventory(4, allocation_ratio=2.0)},
        used={"VCPU": 8},
        aggregates={w.aggregate_uuid(2)},
    )
    cloud.add(inventories={"DISK_GB": w.Inventory(100, reserved=100)})
    return cloud


@pytest.fixture
def cloud(engine) -> w.World:
    made = _cloud()
    w.write(engine, made)
    return made


def _names(page: dict) -> list[list[tuple[str, int]]]:
    """Each tree's providers as (uuid, depth), in page order."""
    return [[(p["uuid"], p["depth"]) for p in tree["providers"]] for tree in page["trees"]]


def uuid(n: int) -> str:
    return w.Provider(n).uuid


def test_a_page_holds_whole_trees_parents_first_and_the_clouds_totals(engine, cloud):
    page = capacity_page(engine, CapacityQuery())
    assert (page["provider_count"], page["tree_count"]) == (6, 3)
    assert _names(page) == [
        [(uuid(1), 0), (uuid(2), 1), (uuid(4), 2), (uuid(3), 1)],
        [(uuid(5), 0)],
        [(uuid(6), 0)],
    ]
    host = page["trees"][0]["providers"][0]
    assert host["resources"] == {
        # int((7 - 1) * 1.5): whole units, as conditions.capacity() and upstream report it
        "MEMORY_MB": {"total": 7, "reserved": 1, "allocation_ratio": 1.5, "capacity": 9, "used": 4}
    }
    assert (host["traits"], host["aggregates"], host["parent_uuid"]) == (
        ["HW_CPU_X86_AVX2"],
        [w.aggregate_uuid(1)],
        None,
    )
    nic = page["trees"][0]["providers"][2]
    assert (nic["parent_uuid"], nic["traits"]) == (uuid(2), ["HW_NIC_SRIOV"])
    assert page["totals"] == {
        "DISK_GB": {"capacity": 0, "used": 0},
        "MEMORY_MB": {"capacity": 9, "used": 4},
        "SRIOV_NET_VF": {"capacity": 4, "used": 0},
        "VCPU": {"capacity": 24, "used": 10},
    }
    assert all(p["matched"] for tree in page["trees"] for p in tree["providers"])


def test_fullest_first_counts_a_tree_by_its_fullest_inventory(engine, cloud):
    page = capacity_page(engine, CapacityQuery(fullest_first=True))
    # All reserved counts as full (1.0), 8 of 8 VCPU too; the host: 4 of 9 memory.
    assert [tree["fullness"] for tree in page["trees"]] == [1.0, 1.0, pytest.approx(4 / 9)]
    assert [tree["providers"][0]["uuid"] for tree in page["trees"]] == [uuid(5), uuid(6), uuid(1)]
    by_class = capacity_page(engine, CapacityQuery(fullest_first=True, resource_class="VCPU"))
    assert [t["providers"][0]["uuid"] for t in by_class["trees"]] == [uuid(5), uuid(1)]
    assert by_class["trees"][1]["fullness"] == 2 / 8


@pytest.mark.parametrize(
    "query, trees, matched",
    [
        (CapacityQuery(name="000000000004"), [1], [4]),
        (CapacityQuery(name="NOT-THERE"), [], []),
        (CapacityQuery(traits=TraitFilter((frozenset({"HW_NIC_SRIOV"}),))), [1], [4]),
        (
            CapacityQuery(traits=TraitFilter(forbidden=frozenset({"HW_CPU_X86_AVX2"}))),
            [1, 5, 6],
            [2, 4, 3, 5, 6],
        ),
        (CapacityQuery(member_of=AggregateFilter((frozenset({w.aggregate_uuid(2)}),))), [5], [5]),
        (CapacityQuery(member_of=AggregateFilter((frozenset({w.aggregate_uuid(9)}),))), [], []),
        (CapacityQuery(resource_class="VCPU"), [1, 5], [2, 3, 5]),
        (CapacityQuery(resource_class="VCPU", name="00000000005"), [5], [5]),
    ],
)
def test_a_tree_shows_when_one_provider_meets_every_filter(engine, cloud, query, trees, matched):
    page = capacity_page(engine, query)
    assert [tree["providers"][0]["uuid"] for tree in page["trees"]] == [uuid(n) for n in trees]
    assert page["tree_count"] == len(trees)
    assert [p["uuid"] for t in page["trees"] for p in t["providers"] if p["matched"]] == [
        uuid(n) for n in matched
    ]


def test_pages_cut_the_ordered_trees(engine, cloud):
    page = capacity_page(engine, CapacityQuery(limit=1, offset=1))
    assert [tree["providers"][0]["uuid"] for tree in page["trees"]] == [uuid(5)]
    assert (page["tree_count"], page["limit"], page["offset"]) == (3, 1, 1)
    assert capacity_page(engine, CapacityQuery(offset=3))["trees"] == []


def test_unknown_names_are_errors_but_unknown_aggregates_match_nothing(engine, cloud):
    with pytest.raises(exceptions.TraitNotFound, match="No such trait.s.: CUSTOM_NOPE"):
        capacity_page(engine, CapacityQuery(traits=TraitFilter((frozenset({"CUSTOM_NOPE"}),))))
    with pytest.raises(exceptions.ResourceClassNotFound, match="CUSTOM_NOPE"):
        capacity_page(engine, CapacityQuery(resource_class="CUSTOM_NOPE"))


@pytest.mark.parametrize("fullest_first", [False, True], ids=["by-name", "fullest-first"])
def test_the_number_of_queries_does_not_grow_with_the_cloud(engine, fullest_first):
    """A page costs the same few statements for 3 trees as for 30."""

    def statements() -> int:
        seen = []

        def count(*_args: object) -> None:
            seen.append(1)

        sqlalchemy.event.listen(engine, "before_cursor_execute", count)
        try:
            capacity_page(engine, CapacityQuery(fullest_first=fullest_first, resource_class="VCPU"))
        finally:
            sqlalchemy.event.remove(engine, "before_cursor_execute", count)
        return len(seen)

    small = _cloud()
    w.write(engine, small)
    few = statements()
    big = w.World()
    for _ in range(30):
        host = big.add(inventories={"MEMORY_MB": w.Inventory(64)}, used={"MEMORY_MB": 1})
        big.add(host.id, inventories={"VCPU": w.Inventory(8)}, used={"VCPU": 1})
    w.erase(engine, small)
    w.write(engine, big)
    assert statements() == few
