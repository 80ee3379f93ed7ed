"""The SQL steps alone: group rows, sharing anchors, ancestry, summaries."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator

import pytest
from sqlalchemy import func, select

from placement import filters
from placement import microversion as mv
from placement.candidates import deployment, query, resolve, summaries, trees
from placement.candidates.known import Known
from placement.candidates.model import (
    UNCHECKED,
    ResolvedGroup,
    Room,
    Shape,
    TraitIds,
    Trees,
    Window,
)
from placement.candidates.request import RequestGroup
from placement.db import reader, tables
from placement.objects import conditions, trait
from tests import rig
from tests.candidates.world import SHARING, Inventory, World, aggregate_uuid, erase, write

AGG_A, AGG_B = aggregate_uuid(1), aggregate_uuid(2)
_AGG = tables.placement_aggregates
EVERYTHING = Window(0, 10**9)


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


@pytest.fixture
def world(db_engine) -> Iterator[World]:
    """1 (aggA) ─┬─ 2: VCPU 4 (1 used), AVX
              └─ 3: VCPU 2 max 1, DISK 10 step 5 ── 4 (aggB): DISK 10, SSD
    5: sharing DISK 100 (aggA); 6: a root on its own (aggB) with VCPU 8."""
    w = World()
    w.add(aggregates={AGG_A})
    w.add(1, inventories={"VCPU": Inventory(4)}, used={"VCPU": 1}, traits={"HW_CPU_X86_AVX"})
    w.add(1, inventories={"VCPU": Inventory(2, max_unit=1), "DISK_GB": Inventory(10, step_size=5)})
    w.add(
        3, inventories={"DISK_GB": Inventory(10)}, traits={"STORAGE_DISK_SSD"}, aggregates={AGG_B}
    )
    w.add(inventories={"DISK_GB": Inventory(100)}, traits={SHARING}, aggregates={AGG_A})
    w.add(inventories={"VCPU": Inventory(8)}, aggregates={AGG_B})
    write(db_engine, w)
    yield w
    erase(db_engine, w)


def _group(conn, suffix="", **kwargs) -> ResolvedGroup:
    traits = kwargs.pop("traits", filters.TraitFilter())
    aggregates = kwargs.pop("aggregates", filters.AggregateFilter())
    return resolve.group(conn, RequestGroup(suffix, kwargs, traits, aggregates))


def test_provider_rows_check_capacity_and_units(db_engine, world):
    with reader(db_engine) as conn:
        group = _group(conn, "1", VCPU=2)
        rows = query.provider_rows(conn, group, window=EVERYTHING, summed=frozenset({0}))
        assert [(r.provider, r.root) for r in rows] == [(2, 1), (6, 6)]
        assert rows[0].rooms == ((0, Room(3, 2147483647)),)
        # A class no other group asks for: its room is not needed.
        rows = query.provider_rows(conn, group, window=EVERYTHING)
        assert rows[0].rooms == ((0, UNCHECKED),)
        # DISK_GB 3 is not a multiple of provider 3's step size of 5.
        rows = query.provider_rows(conn, _group(conn, "1", DISK_GB=3), window=EVERYTHING)
        assert [r.provider for r in rows] == [4, 5]


def test_provider_rows_filter_on_the_provider_itself(db_engine, world):
    with reader(db_engine) as conn:
        avx = filters.TraitFilter((frozenset({"HW_CPU_X86_AVX"}),))
        rows = query.provider_rows(conn, _group(conn, "1", VCPU=1, traits=avx), window=EVERYTHING)
        assert [r.provider for r in rows] == [2]
        in_a = filters.AggregateFilter((frozenset({AGG_A}),))
        rows = query.provider_rows(
            conn, _group(conn, "1", VCPU=1, aggregates=in_a), window=EVERYTHING
        )
        assert rows == []  # only the root is in A, and it has no VCPU


def test_provider_rows_window_and_sharing(db_engine, world):
    with reader(db_engine) as conn:
        group = _group(conn, "1", DISK_GB=10)
        assert [r.provider for r in query.provider_rows(conn, group, window=Window(1, 4))] == [3, 4]
        sharing = resolve.sharing_trait(conn)
        assert [r.provider for r in query.provider_rows(conn, group, sharing_trait=sharing)] == [5]


def test_resourceless_group_needs_traits_or_aggregates(db_engine, world):
    with reader(db_engine) as conn:
        assert query.provider_rows(conn, _group(conn, "1"), window=EVERYTHING) == []
        in_b = filters.AggregateFilter((frozenset({AGG_B}),))
        rows = query.provider_rows(conn, _group(conn, "1", aggregates=in_b), window=EVERYTHING)
        assert [r.provider for r in rows] == [4, 6]


def test_class_rows_span_the_tree_through_the_root(db_engine, world):
    with reader(db_engine) as conn:
        in_a = filters.AggregateFilter((frozenset({AGG_A}),))
        ssd = filters.TraitFilter((frozenset({"STORAGE_DISK_SSD"}),))
        group = _group(conn, VCPU=1, DISK_GB=5, aggregates=in_a, traits=ssd)
        rows = query.class_rows(conn, group, window=EVERYTHING, summed=frozenset({2}))
        assert [(r.provider, r.resource_class, r.trait_bits) for r in rows] == [
            (2, 0, 0),
            (3, 0, 0),
            (3, 2, 0),
            (4, 2, 1),
            (5, 2, 0),
        ]
        assert [r.room for r in rows] == [
            UNCHECKED,
            UNCHECKED,
            Room(10, 2147483647),
            Room(10, 2147483647),
            Room(100, 2147483647),
        ]


def test_class_rows_forbidden_aggregate_on_the_root_drops_the_tree(db_engine, world):
    with reader(db_engine) as conn:
        not_a = filters.AggregateFilter(forbidden=frozenset({AGG_A}))
        rows = query.class_rows(conn, _group(conn, VCPU=1, aggregates=not_a), window=EVERYTHING)
        assert [r.provider for r in rows] == [6]


def test_shape(db_engine, world):
    rp = tables.resource_providers
    with reader(db_engine) as conn:
        ids = tuple(conn.execute(select(func.min(rp.c.id), func.max(rp.c.id))).one())
        assert deployment.shape(conn) == (
            Shape(True, True, resolve.sharing_trait(conn), ids),
            deployment.Names({}, {}),
        )


def test_shape_reads_the_ids_of_names_that_exist_matched_exactly(db_engine, world):
    with reader(db_engine) as conn:
        avx = trait.trait_id(conn, "HW_CPU_X86_AVX")
        aggregates = dict(conn.execute(select(_AGG.c.uuid, _AGG.c.id)).all())
        shape, known = deployment.shape(
            conn,
            ["HW_CPU_X86_AVX", "hw_cpu_x86_avx", "HW_CPU_X86_AVX ", "CUSTOM_NONE"],
            [AGG_A, AGG_A.upper(), str(uuid.uuid4())],
        )
        assert shape == deployment.shape(conn)[0]
        assert known == deployment.Names({"HW_CPU_X86_AVX": avx}, {AGG_A: aggregates[AGG_A]})


def test_sharing_anchors_are_trees_with_any_provider_in_the_aggregate(db_engine, world):
    with reader(db_engine) as conn:
        assert trees.sharing_anchors(conn, [5], EVERYTHING) == {5: {1, 5}}
        agg_a = conditions.aggregate_ids(
            conn, filters.AggregateFilter(forbidden=frozenset({AGG_A}))
        )
        assert trees.sharing_anchors(conn, [5], EVERYTHING, agg_a.forbidden) == {}
        assert trees.sharing_anchors(conn, [5], Window(2, 10)) == {5: {5}}
        avx = TraitIds((frozenset({_trait_id(conn, "HW_CPU_X86_AVX")}),))
        # Provider 1's tree has AVX only on a child: not a root trait.
        assert trees.sharing_anchors(conn, [5], Window(0, 10, avx)) == {}


def _trait_id(conn, name: str) -> int:
    from placement.objects import trait

    return trait.trait_id(conn, name)


def test_ancestry(db_engine, world):
    with reader(db_engine) as conn:
        ancestry = trees.ancestry(conn, Window(1, 1), [5])
    assert ancestry.same_subtree({1, 4}) and ancestry.same_subtree({1, 3, 4})
    assert ancestry.related(1, 4) and ancestry.related(4, 3) and ancestry.related(2, 2)
    assert not ancestry.related(2, 4) and not ancestry.related(4, 5)
    assert ancestry.same_subtree({3, 4})
    assert not ancestry.same_subtree({2, 4})
    assert ancestry.same_subtree({1, 2, 4})
    assert not ancestry.same_subtree({4, 5})


def test_summaries_per_version(db_engine, world):
    with reader(db_engine) as conn:
        loaded = summaries.load(conn, Known(), [1])
    assert set(loaded.providers) == {1, 2, 3, 4}
    uuid = {n: world.providers[n].uuid for n in world.providers}
    old = json.loads(summaries.text(loaded, [2, 3], mv.Version(1, 16), {"VCPU"}))
    assert old == {
        uuid[2]: {"resources": {"VCPU": {"capacity": 4, "used": 1}}},
        uuid[3]: {"resources": {"VCPU": {"capacity": 2, "used": 0}}},
    }
    new = json.loads(summaries.text(loaded, [3], mv.MAX_VERSION, {"VCPU"}))
    assert new == {
        uuid[3]: {
            "resources": {
                "VCPU": {"capacity": 2, "used": 0},
                "DISK_GB": {"capacity": 10, "used": 0},
            },
            "traits": [],
            "parent_provider_uuid": uuid[1],
            "root_provider_uuid": uuid[1],
        }
    }
    root = json.loads(summaries.text(loaded, [1], mv.MAX_VERSION, set()))[uuid[1]]
    assert root["resources"] == {}


def test_summaries_of_more_unknown_providers_than_a_chunk(db_engine, world, monkeypatch):
    """Beyond a chunk, the providers not yet known are read in reads of their own."""
    with reader(db_engine) as conn:
        whole = summaries.load(conn, Known(), [1])
        monkeypatch.setattr(summaries, "CHUNK", 1)
        chunked = summaries.load(conn, Known(), [1])
    shown = [1, 2, 3, 4]
    assert summaries.text(chunked, shown, mv.MAX_VERSION, set()) == summaries.text(
        whole, shown, mv.MAX_VERSION, set()
    )
    assert chunked.providers[3].resources  # read in the second batch


@pytest.mark.parametrize(
    "version",
    [mv.Version(1, 10), mv.Version(1, 17), mv.Version(1, 27), mv.Version(1, 29), mv.MAX_VERSION],
)
def test_summaries_text_is_json_dumps_of_plain_dicts(db_engine, world, version):
    with reader(db_engine) as conn:
        loaded = summaries.load(conn, Known(), [1, 5])
    shown = set(loaded.providers)
    assert summaries.text(loaded, shown, version, {"VCPU"}) == json.dumps(
        _as_dicts(loaded, shown, version, {"VCPU"})
    )


def _as_dicts(
    trees: Trees, shown: Iterable[int], version: mv.Version, requested: set[str]
) -> dict[str, dict]:
    """``provider_summaries`` built as dicts: the plain reference that
    ``summaries.text`` must encode exactly."""
    all_classes = version >= mv.SUMMARIES_ALL_CLASSES
    with_traits = version >= mv.CANDIDATES_TRAITS
    nested = version >= mv.NESTED_CANDIDATES
    providers = trees.providers
    summaries = {}
    for id_ in sorted(shown):
        provider = providers[id_]
        summary: dict = {
            "resources": {
                name: {"capacity": capacity, "used": used}
                for name, capacity, used in provider.resources
                if all_classes or name in requested
            }
        }
        if with_traits:
            summary["traits"] = list(provider.traits)
        if nested:
            summary["parent_provider_uuid"] = (
                providers[provider.parent].uuid if provider.parent is not None else None
            )
            summary["root_provider_uuid"] = providers[provider.root].uuid
        summaries[provider.uuid] = summary
    return summaries
