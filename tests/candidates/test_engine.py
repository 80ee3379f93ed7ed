"""The engine as a whole: windows, limits, strategies, error order, old versions."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from placement import errors
from placement import microversion as mv
from placement.candidates import engine
from placement.candidates import request as candidate_request
from placement.db import tables
from placement.db.transaction import reader
from placement.objects import exceptions
from tests import rig
from tests.candidates.strategies import on_database, queries, worlds
from tests.candidates.world import Inventory, World, erase, write


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


@pytest.fixture
def small_windows(monkeypatch):
    """Windows of two root ids, so that even small worlds take several."""
    monkeypatch.setattr(engine, "FIRST_WINDOW", 2)


def _find(db_engine, pairs, version=mv.MAX_VERSION, **options) -> dict:
    wanted = candidate_request.parse(pairs, version)
    return json.loads(engine.find(db_engine, wanted, engine.Settings(**options)))


@pytest.fixture
def hosts(db_engine) -> Iterator[World]:
    """Six hosts with VCPU 4 each; the fourth one is full."""
    world = World()
    for n in range(6):
        world.add(inventories={"VCPU": Inventory(4)}, used={"VCPU": 4} if n == 3 else {})
    write(db_engine, world)
    yield world
    erase(db_engine, world)


def _hosts_of(body: dict) -> list[str]:
    return [next(iter(ar["allocations"])) for ar in body["allocation_requests"]]


def test_anchors_come_in_id_order(db_engine, hosts, small_windows):
    body = _find(db_engine, [("resources", "VCPU:1")])
    assert _hosts_of(body) == [hosts.providers[n].uuid for n in (1, 2, 3, 5, 6)]


def test_limit_takes_the_first_and_summarizes_only_them(db_engine, hosts, small_windows):
    body = _find(db_engine, [("resources", "VCPU:1"), ("limit", "2")])
    assert _hosts_of(body) == [hosts.providers[1].uuid, hosts.providers[2].uuid]
    assert set(body["provider_summaries"]) == set(_hosts_of(body))


def test_max_allocation_candidates_caps_before_limit(db_engine, hosts):
    body = _find(db_engine, [("resources", "VCPU:1"), ("limit", "4")], max_candidates=3)
    assert len(body["allocation_requests"]) == 3


def test_randomized_limit_samples_among_all(db_engine, hosts):
    seen = set()
    for _ in range(40):
        body = _find(db_engine, [("resources", "VCPU:1"), ("limit", "1")], randomize=True)
        seen.update(_hosts_of(body))
    assert len(seen) > 1
    assert seen <= {p.uuid for p in hosts.providers.values()}


def test_randomized_without_limit_returns_everything(db_engine, hosts):
    body = _find(db_engine, [("resources", "VCPU:1")], randomize=True)
    assert sorted(_hosts_of(body)) == sorted(p.uuid for n, p in hosts.providers.items() if n != 4)


@pytest.fixture
def two_trees(db_engine) -> Iterator[World]:
    """Two roots, each with three children of one unit of VGPU."""
    world = World()
    for _ in range(2):
        root = world.add()
        for _ in range(3):
            world.add(root.id, inventories={"VGPU": Inventory(1)})
    write(db_engine, world)
    yield world
    erase(db_engine, world)


def test_depth_first_exhausts_a_tree_first(db_engine, two_trees):
    body = _find(db_engine, [("resources", "VGPU:1")], max_candidates=2)
    roots = {s["root_provider_uuid"] for s in body["provider_summaries"].values()}
    assert roots == {two_trees.providers[1].uuid}


def test_breadth_first_takes_turns(db_engine, two_trees):
    body = _find(db_engine, [("resources", "VGPU:1")], max_candidates=2, breadth_first=True)
    roots = {s["root_provider_uuid"] for s in body["provider_summaries"].values()}
    assert roots == {two_trees.providers[1].uuid, two_trees.providers[5].uuid}


def test_identical_groups_get_every_arrangement(db_engine, two_trees):
    pairs = [(f"resources{n}", "VGPU:1") for n in (1, 2, 3)] + [("group_policy", "none")]
    body = _find(db_engine, pairs)
    # Per tree, three single-unit children for three groups: 3! ways.
    assert len(body["allocation_requests"]) == 12
    mappings = {
        tuple(sorted((k, tuple(v)) for k, v in ar["mappings"].items()))
        for ar in body["allocation_requests"]
    }
    assert len(mappings) == 12


def test_before_1_29_summaries_include_providers_cut_by_limit(db_engine, two_trees):
    body = _find(db_engine, [("resources", "VGPU:1"), ("limit", "1")], mv.Version(1, 28))
    assert len(body["allocation_requests"]) == 1
    # Every child of the kept tree appears in some candidate.
    assert len(body["provider_summaries"]) == 3


def test_an_unknown_name_after_a_group_without_match_is_no_error(db_engine, two_trees):
    pairs = [
        ("resources_A", "VCPU:1"),
        ("resources_B", "VGPU:1"),
        ("required_B", "CUSTOM_NOT_A_TRAIT"),
        ("group_policy", "none"),
    ]
    assert _find(db_engine, pairs) == {"allocation_requests": [], "provider_summaries": {}}
    pairs[0] = ("resources_A", "VGPU:1")
    with pytest.raises(exceptions.TraitNotFound, match="No such trait"):
        _find(db_engine, pairs)


def test_unknown_class_is_checked_before_an_unknown_aggregate(db_engine, two_trees):
    agg = "11111111-2222-3333-4444-555555555555"
    with pytest.raises(
        exceptions.ResourceClassNotFound, match="No such resource class CUSTOM_NOPE"
    ):
        _find(db_engine, [("resources", "CUSTOM_NOPE:1"), ("member_of", agg)])
    # An aggregate nobody is in makes the group match nothing: its traits
    # are then not looked at.
    assert (
        _find(
            db_engine, [("resources", "VGPU:1"), ("member_of", agg), ("required", "CUSTOM_NOPE")]
        )["allocation_requests"]
        == []
    )


@on_database(40)
@given(data=st.data())
def test_a_limit_returns_the_first_of_the_whole_answer(db_engine, small_windows, data):
    world = data.draw(worlds())
    version, pairs = data.draw(queries(world))
    try:
        candidate_request.parse(pairs, version)
    except errors.BadRequest:
        return
    write(db_engine, world)
    try:
        whole = _find(db_engine, pairs, version)
        limit = data.draw(st.integers(1, max(1, len(whole["allocation_requests"]))))
        first = _find(db_engine, pairs + [("limit", str(limit))], version)
        capped = _find(db_engine, pairs, version, max_candidates=limit)
    finally:
        erase(db_engine, world)
    assert first["allocation_requests"] == whole["allocation_requests"][:limit]
    assert capped["allocation_requests"] == first["allocation_requests"]
    if version >= mv.NESTED_CANDIDATES:
        assert set(first["provider_summaries"]) <= set(whole["provider_summaries"])
        assert first["provider_summaries"] == capped["provider_summaries"]


def test_summaries_read_long_trait_lists_and_exact_ratios(db_engine):
    """Summaries fold each provider's traits and inventories into one text
    column: a list longer than MySQL's default GROUP_CONCAT limit (1 KiB)
    comes back whole and in id order, and capacity uses the allocation ratio exactly as the
    driver reads the column (as upstream computes it)."""
    with reader(db_engine) as conn:
        every_trait = list(
            conn.execute(select(tables.traits.c.name).order_by(tables.traits.c.id)).scalars()
        )
    world = World()
    world.add(
        inventories={
            "VCPU": Inventory(7, allocation_ratio=1.3333333),
            "MEMORY_MB": Inventory(1000, reserved=1, allocation_ratio=0.9),
            "DISK_GB": Inventory(3, allocation_ratio=1 / 3),
        },
        traits=set(every_trait),
    )
    write(db_engine, world)
    try:
        with reader(db_engine) as conn:
            read_back = dict(
                conn.execute(
                    select(
                        tables.resource_classes.c.name, tables.inventories.c.allocation_ratio
                    ).join(
                        tables.inventories,
                        tables.inventories.c.resource_class_id == tables.resource_classes.c.id,
                    )
                ).all()
            )
        body = _find(db_engine, [("resources", "VCPU:1")])
        summary = body["provider_summaries"][world.providers[1].uuid]
        assert len(", ".join(every_trait)) > 1024
        assert summary["traits"] == every_trait  # in id order, as upstream
        assert summary["resources"] == {
            "VCPU": {"capacity": int(7 * read_back["VCPU"]), "used": 0},
            "MEMORY_MB": {"capacity": int(999 * read_back["MEMORY_MB"]), "used": 0},
            "DISK_GB": {"capacity": int(3 * read_back["DISK_GB"]), "used": 0},
        }
    finally:
        erase(db_engine, world)
