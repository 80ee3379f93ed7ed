"""Which trees the windows visit: only those a required trait, aggregate,
``in_tree`` or ``root_required`` allows, when their holders are few.

The answers themselves are checked against the brute-force reference in
``test_property.py`` (narrowing on, since its worlds are small) and below
with narrowing pushed off; here, what the narrowing leaves to visit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import event

from placement import db
from placement import microversion as mv
from placement.candidates import engine, narrow, query
from placement.candidates import request as candidate_request
from placement.candidates.model import Window
from placement.db.transaction import reader
from tests import rig
from tests.candidates.world import SHARING, Inventory, World, aggregate_uuid, erase, write

RARE = "HW_GPU_API_VULKAN"
OTHER = "HW_CPU_X86_AVX2"


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


@pytest.fixture(autouse=True)
def forget_common_clues() -> None:
    """Each test learns afresh which clues are common."""
    narrow._COMMON.clear()


def _hosts(count: int) -> World:
    world = World()
    for _ in range(count):
        world.add(inventories={"VCPU": Inventory(8)})
    return world


@pytest.fixture
def cloud(db_engine) -> Iterator[World]:
    """Twenty hosts: 5 has the rare trait itself, 12 through a child (a
    GPU); 3 and 12 are in aggregate 1; 7 has the other trait."""
    world = _hosts(20)
    world.providers[5].traits.add(RARE)
    world.add(parent=12, inventories={"VGPU": Inventory(2)}, traits={RARE})
    world.providers[3].aggregates.add(aggregate_uuid(1))
    world.providers[12].aggregates.add(aggregate_uuid(1))
    world.providers[7].traits.add(OTHER)
    write(db_engine, world)
    yield world
    erase(db_engine, world)


def _roots(db_engine, pairs) -> tuple[int, ...] | None:
    wanted = candidate_request.parse(pairs, mv.MAX_VERSION)
    with reader(db_engine) as conn:
        plan = engine.resolve_plan(conn, wanted)
        found = narrow.roots(conn, plan)
        return None if found is None else tuple(found)


def test_a_required_trait_leaves_the_trees_that_hold_it(db_engine, cloud):
    assert _roots(db_engine, [("resources", "VCPU:1"), ("required", RARE)]) == (5, 12)


def test_any_of_leaves_the_trees_of_each_member(db_engine, cloud):
    pairs = [("resources", "VCPU:1"), ("required", f"in:{RARE},{OTHER}")]
    assert _roots(db_engine, pairs) == (5, 7, 12)


def test_clues_of_several_groups_all_hold(db_engine, cloud):
    pairs = [
        ("resources", "VCPU:1"),
        ("member_of", aggregate_uuid(1)),
        ("resources1", "VGPU:1"),
        ("required1", RARE),
    ]
    assert _roots(db_engine, pairs) == (12,)


def test_root_required_counts_the_root_alone(db_engine, cloud):
    assert _roots(db_engine, [("resources", "VCPU:1"), ("root_required", RARE)]) == (5,)


def test_in_tree_leaves_its_tree(db_engine, cloud):
    pairs = [("resources", "VCPU:1"), ("in_tree", cloud.providers[21].uuid)]
    assert _roots(db_engine, pairs) == (12,)


def test_forbidden_traits_narrow_nothing(db_engine, cloud):
    assert _roots(db_engine, [("resources", "VCPU:1"), ("required", f"!{RARE}")]) is None


def test_a_trait_a_sharing_provider_has_narrows_nothing(db_engine):
    world = _hosts(4)
    world.providers[2].traits.add(RARE)
    world.add(inventories={"DISK_GB": Inventory(100)}, traits={SHARING, RARE})
    write(db_engine, world)
    try:
        assert _roots(db_engine, [("resources", "VCPU:1"), ("required", RARE)]) is None
        # root_required is about the anchor's own root, whoever shares.
        assert _roots(db_engine, [("resources", "VCPU:1"), ("root_required", RARE)]) == (2, 5)
    finally:
        erase(db_engine, world)


def test_a_common_clue_narrows_nothing(db_engine, cloud, monkeypatch):
    """Held by more than a third of the providers (and the floor lowered)."""
    monkeypatch.setattr(narrow, "FEWEST_MOST", 1)
    assert _roots(db_engine, [("resources", "VCPU:1"), ("required", RARE)]) == (5, 12)
    for n in range(1, 12):
        cloud.providers[n].traits.add(OTHER)
    erase(db_engine, cloud)
    write(db_engine, cloud)
    assert _roots(db_engine, [("resources", "VCPU:1"), ("required", OTHER)]) is None


def test_a_clue_found_common_is_not_read_again_for_a_while(db_engine, cloud, monkeypatch):
    monkeypatch.setattr(narrow, "FEWEST_MOST", 1)
    for n in range(1, 12):
        cloud.providers[n].traits.add(OTHER)
    erase(db_engine, cloud)
    write(db_engine, cloud)
    pairs = [("resources", "VCPU:1"), ("required", OTHER)]
    assert _links_read(db_engine, pairs) == 1
    assert _links_read(db_engine, pairs) == 0
    monkeypatch.setattr(narrow, "COMMON_FOR", 0.0)
    assert _links_read(db_engine, pairs) == 1


def _links_read(db_engine, pairs) -> int:
    """How many times narrowing read the link tables to answer ``pairs``."""
    reads = []

    def seen(_conn, _cursor, statement, _parameters, _context, _many) -> None:
        if "AS clue" in statement:
            reads.append(statement)

    engines = list(dict.fromkeys([db_engine, db.readers_of(db_engine)]))
    for each in engines:
        event.listen(each, "before_cursor_execute", seen)
    try:
        assert _roots(db_engine, pairs) is None
    finally:
        for each in engines:
            event.remove(each, "before_cursor_execute", seen)
    return len(reads)


def _group_reads(db_engine, pairs, **options) -> tuple[list[str], list[dict]]:
    """The hosts answered, and the parameters of each window's reads."""
    windows: list[dict] = []

    def seen(_conn, _cursor, _statement, _parameters, context, _many) -> None:
        compiled = context.compiled
        if compiled is not None and {"window_roots", "window_low"} & set(compiled.binds):
            windows.append(context.compiled_parameters[0])

    engines = list(dict.fromkeys([db_engine, db.readers_of(db_engine)]))
    for each in engines:
        event.listen(each, "before_cursor_execute", seen)
    try:
        wanted = candidate_request.parse(pairs, mv.MAX_VERSION)
        body = json.loads(engine.find(db_engine, wanted, engine.Settings(**options)))
    finally:
        for each in engines:
            event.remove(each, "before_cursor_execute", seen)
    hosts = [next(iter(ar["allocations"])) for ar in body["allocation_requests"]]
    return hosts, windows


def test_the_windows_visit_only_the_holders_trees(db_engine, cloud, monkeypatch):
    monkeypatch.setattr(engine, "FIRST_WINDOW", 2)
    pairs = [("resources", "VCPU:1"), ("required", RARE), ("limit", "5")]
    hosts, windows = _group_reads(db_engine, pairs)
    # Tree 12 is visited, but its trait is on a child that gives no VCPU.
    assert hosts == [cloud.providers[5].uuid]
    # One window listing both trees, where windows of root ids would have
    # taken several to get from 1 to 12.
    assert len(windows) == 1


def test_narrowed_or_not_the_answer_is_the_same(db_engine, cloud, monkeypatch):
    monkeypatch.setattr(engine, "FIRST_WINDOW", 2)
    pairs = [("resources", "VCPU:1"), ("required", f"in:{RARE},{OTHER}"), ("limit", "2")]
    narrowed, _ = _group_reads(db_engine, pairs)
    monkeypatch.setattr(narrow, "roots", lambda *_: None)
    ranged, windows = _group_reads(db_engine, pairs)
    assert narrowed == ranged == [cloud.providers[5].uuid, cloud.providers[7].uuid]
    assert len(windows) > 1


def test_windows_of_root_ids_grow_to_the_widest_and_no_further():
    sizes = iter(engine.Sizes())
    assert [next(sizes) for _ in range(6)] == [64, 256, 1024, 4096, 4096, 4096]


def test_where_nothing_shares_a_tree_without_the_traits_gives_no_rows(db_engine, cloud):
    """The windows' own filter for a clue too common to narrow by."""
    wanted = candidate_request.parse([("resources", "VCPU:1"), ("required", RARE)], mv.MAX_VERSION)
    with reader(db_engine) as conn:
        group = engine.resolve_plan(conn, wanted).groups[0]
        window = Window(1, 21)
        everyone = query.class_rows(conn, group, window=window)
        holders = query.class_rows(conn, group, window=window, unshared=True)
    assert {row.root for row in everyone} == set(range(1, 21))
    assert {row.root for row in holders} == {5, 12}


def test_roots_are_read_a_page_at_a_time_as_the_windows_take_them(db_engine, cloud, monkeypatch):
    """Windows that stop at a limit read only the pages they reach."""
    monkeypatch.setattr(narrow, "PAGE", 1)
    monkeypatch.setattr(engine, "FIRST_WINDOW", 1)
    pairs = [("resources", "VCPU:1"), ("required", f"in:{RARE},{OTHER}")]
    assert _roots(db_engine, pairs) == (5, 7, 12)
    hosts, _ = _group_reads(db_engine, [*pairs, ("limit", "1")])
    assert hosts == [cloud.providers[5].uuid]
    assert _pages_read(db_engine, [*pairs, ("limit", "1")]) == 1
    # Unlimited, every root comes in one read.
    assert _pages_read(db_engine, pairs) == 1
    # One more candidate wanted after the first tree's: the second window
    # takes two roots (see Sizes), one page each.
    assert _pages_read(db_engine, [*pairs, ("limit", "2")]) == 3


def _pages_read(db_engine, pairs) -> int:
    """How many pages of roots narrowing read to answer ``pairs``."""
    reads = []

    def seen(_conn, _cursor, _statement, _parameters, context, _many) -> None:
        if context.compiled is not None and "after" in context.compiled.binds:
            reads.append(1)

    engines = list(dict.fromkeys([db_engine, db.readers_of(db_engine)]))
    for each in engines:
        event.listen(each, "before_cursor_execute", seen)
    try:
        wanted = candidate_request.parse(pairs, mv.MAX_VERSION)
        engine.find(db_engine, wanted, engine.Settings())
    finally:
        for each in engines:
            event.remove(each, "before_cursor_execute", seen)
    return len(reads)


def test_a_window_after_the_first_takes_about_the_trees_the_limit_still_needs():
    sizes = engine.Sizes(wanted=100)
    chosen = iter(sizes)
    assert next(chosen) == 64
    sizes.visited, sizes.found = 64, 64
    # 36 more at one per tree, a quarter to spare: 46, at least the first's 64.
    assert next(chosen) == 64
    sizes.visited, sizes.found = 128, 70
    # 30 more at 70 per 128 trees: 69 trees.
    assert next(chosen) == 69
    sizes.visited, sizes.found = 197, 100
    # Taken past what it wanted (the summaries before 1.29 see them all): grow.
    assert next(chosen) == 4 * 69


def test_windows_stop_growing_when_the_limit_is_near(db_engine, cloud, monkeypatch):
    monkeypatch.setattr(engine, "FIRST_WINDOW", 2)
    hosts, windows = _group_reads(db_engine, [("resources", "VCPU:1"), ("limit", "3")])
    assert hosts == [cloud.providers[n].uuid for n in (1, 2, 3)]
    spans = [w["window_high"] - w["window_low"] + 1 for w in windows if "window_high" in w]
    # Two trees gave two candidates; one more needs two trees, not eight.
    assert spans[:2] == [2, 2]
