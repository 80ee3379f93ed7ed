"""The explanation: every rule is reported where it applies, and its verdicts
agree with the candidates (the engine's) and with the brute-force reference."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from placement import microversion as mv
from placement.candidates import engine, explain, verdicts
from placement.candidates import request as candidate_request
from placement.objects import exceptions
from tests import rig
from tests.candidates import reference
from tests.candidates.strategies import draw_request, on_database
from tests.candidates.world import SHARING, Inventory, World, aggregate_uuid, erase, write

AGG1, AGG2, AGG3 = aggregate_uuid(1), aggregate_uuid(2), aggregate_uuid(3)


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


def _world() -> World:
    """cn1 (VCPU 4 with 3 used; MEMORY_MB min 256, max 1024, step 256; AVX;
    aggregate 1), cn2 (VCPU 8), host (numa0 and numa1 with VCPU 2 each, nic
    with SRIOV_NET_VF 4) and shr (sharing DISK_GB 100 in aggregate 3 alone)."""
    world = World()
    world.add(
        inventories={
            "VCPU": Inventory(4),
            "MEMORY_MB": Inventory(2048, min_unit=256, max_unit=1024, step_size=256),
        },
        used={"VCPU": 3},
        traits={"HW_CPU_X86_AVX"},
        aggregates={AGG1},
    )
    world.add(inventories={"VCPU": Inventory(8)}, aggregates={AGG2})
    host = world.add()
    world.add(host.id, inventories={"VCPU": Inventory(2)})
    world.add(host.id, inventories={"VCPU": Inventory(2)})
    world.add(host.id, inventories={"SRIOV_NET_VF": Inventory(4)})
    world.add(inventories={"DISK_GB": Inventory(100)}, traits={SHARING}, aggregates={AGG3})
    return world


CN1, CN2, HOST, NUMA0, NUMA1, NIC, SHR = range(1, 8)

#: (query, version, level, rule, provider or root id (None: the request), group)
CASES = [
    ("resources1=VCPU:1,DISK_GB:1", None, "provider", "no_inventory", CN1, "1"),
    ("resources=VCPU:2", None, "provider", "capacity", CN1, ""),
    ("resources=MEMORY_MB:128", None, "provider", "min_unit", CN1, ""),
    ("resources=MEMORY_MB:2048", None, "provider", "max_unit", CN1, ""),
    ("resources=MEMORY_MB:300", None, "provider", "step_size", CN1, ""),
    ("resources1=VCPU:1&required1=HW_CPU_X86_AVX", None, "provider", "missing_trait", CN2, "1"),
    ("resources=VCPU:1&required=!HW_CPU_X86_AVX", None, "provider", "forbidden_trait", CN1, ""),
    (f"resources1=VCPU:1&member_of1={AGG1}", None, "provider", "not_in_aggregate", CN2, "1"),
    (f"resources=VCPU:1&member_of={AGG2}", None, "provider", "not_in_aggregate", NUMA0, ""),
    (f"resources=VCPU:1&member_of=!{AGG1}", None, "provider", "forbidden_aggregate", CN1, ""),
    ("resources1=VCPU:1&in_tree1=UUID2", None, "provider", "outside_tree", CN1, "1"),
    ("resources1=VCPU:1&in_tree1=UUID2", None, "tree", "outside_tree", CN1, "1"),
    ("resources=VCPU:1&root_required=HW_CPU_X86_AVX", None, "tree", "root_required", CN2, None),
    ("resources=VCPU:1&root_required=HW_CPU_X86_SSE", None, "tree", "root_required", CN1, None),
    ("resources=DISK_GB:10", None, "tree", "not_shared", CN2, ""),
    ("resources=VCPU:1", None, "tree", "no_provider", SHR, ""),
    ("resources1=VCPU:1&resources2=VCPU:1&group_policy=none", None, "tree", "capacity", CN1, None),
    ("resources=VCPU:1&required=HW_CPU_X86_AVX", None, "tree", "missing_trait", CN2, ""),
    ("resources=VCPU:1,SRIOV_NET_VF:1", (1, 28), "tree", "one_provider_per_tree", HOST, None),
    (
        "resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate",
        None,
        "tree",
        "isolate",
        CN2,
        None,
    ),
    (
        "resources_C=VCPU:1&resources_N=SRIOV_NET_VF:1&same_subtree=_C,_N&group_policy=none",
        None,
        "tree",
        "same_subtree",
        HOST,
        None,
    ),
    (
        f"resources=VCPU:1&member_of={aggregate_uuid(9)}",
        None,
        "request",
        "not_in_aggregate",
        None,
        "",
    ),
    ("resources=VCPU:1&in_tree=UUID99", None, "request", "outside_tree", None, ""),
    (
        "resources1=VGPU:1&resources2=CUSTOM_NOPE:1&group_policy=none",
        None,
        "request",
        "no_provider",
        None,
        "1",
    ),
]


@pytest.fixture
def seeded(db_engine) -> Iterator[World]:
    world = _world()
    write(db_engine, world)
    yield world
    erase(db_engine, world)


def _pairs(query: str, world: World) -> list[tuple[str, str]]:
    text = query.replace("UUID99", world.providers[1].uuid[:-2] + "99")
    for number, provider in world.providers.items():
        text = text.replace(f"UUID{number}", provider.uuid)
    return [tuple(item.split("=", 1)) for item in text.split("&")]  # type: ignore[misc]


def _explain(db_engine, world: World, query: str, version=None) -> dict:
    wanted = candidate_request.parse(
        _pairs(query, world), mv.Version(*version) if version else mv.MAX_VERSION
    )
    return explain.explain(db_engine, wanted)


@pytest.mark.parametrize(("query", "version", "level", "rule", "who", "group"), CASES)
def test_each_rule_is_reported(db_engine, seeded, query, version, level, rule, who, group):
    found = _explain(db_engine, seeded, query, version)["explanations"]
    uuid = seeded.providers[who].uuid if who else None
    assert any(
        (e["level"], e["rule"], e["uuid"], e["group"]) == (level, rule, uuid, group) for e in found
    ), found


def test_every_rule_has_a_case():
    tried = {(level, rule) for _, _, level, rule, _, _ in CASES}
    assert {rule for level, rule in tried if level == "provider"} == set(verdicts.PROVIDER_RULES)
    assert {rule for level, rule in tried if level == "tree"} == set(explain.TREE_RULES)


def test_unknown_names_are_the_candidates_error(db_engine, seeded):
    with pytest.raises(exceptions.NameNotFound, match="No such resource class CUSTOM_NOPE"):
        _explain(db_engine, seeded, "resources=CUSTOM_NOPE:1")


def test_a_tree_verdict_names_the_class_that_does_not_fit(db_engine):
    """Three trees with VCPU to spare and MEMORY_MB used up: both the provider
    and the tree verdicts name MEMORY_MB, never VCPU."""
    world = World()
    for _ in range(3):
        world.add(
            inventories={"VCPU": Inventory(64), "MEMORY_MB": Inventory(8192)},
            used={"MEMORY_MB": 8192},
        )
    write(db_engine, world)
    try:
        found = _explain(db_engine, world, "resources=VCPU:40,MEMORY_MB:4096")["explanations"]
    finally:
        erase(db_engine, world)
    trees = [e for e in found if e["level"] == "tree"]
    assert [(e["rule"], e["resource_class"]) for e in trees] == [("no_provider", "MEMORY_MB")] * 3
    assert all("(MEMORY_MB)" in e["detail"] and "VCPU" not in e["detail"] for e in trees)
    providers = [e for e in found if e["level"] == "provider"]
    assert {(e["rule"], e["resource_class"]) for e in providers} == {("capacity", "MEMORY_MB")}


def test_numbers_of_capacity(db_engine, seeded):
    found = _explain(db_engine, seeded, "resources=VCPU:2")["explanations"]
    (capacity,) = [e for e in found if e["rule"] == "capacity"]
    assert capacity["resource_class"] == "VCPU"
    assert {k: capacity["numbers"][k] for k in ("capacity", "used", "free", "requested")} == {
        "capacity": 4,
        "used": 3,
        "free": 1,
        "requested": 2,
    }


def test_trees_that_qualify(db_engine, seeded):
    trees = _explain(db_engine, seeded, "resources=VCPU:2")["trees"]
    by_uuid = {tree["uuid"]: tree["qualifies"] for tree in trees}
    assert by_uuid == {seeded.providers[p].uuid: p in (CN2, HOST) for p in (CN1, CN2, HOST, SHR)}


def test_explanations_are_capped(db_engine, seeded, monkeypatch):
    monkeypatch.setattr(explain, "MAX_EXPLANATIONS", 2)
    document = _explain(db_engine, seeded, "resources=VGPU:1")
    assert len(document["explanations"]) == 2
    assert document["explanations_omitted"] == 2


# --- against the engine and the reference -------------------------------------


def _reference_anchors(world: World, wanted) -> set[int]:
    """Roots under which the brute-force reference finds a candidate."""
    return {
        anchor
        for anchor in reference._anchors(world, wanted)
        if any(
            reference._combine(world, wanted, picks) is not None
            for picks in itertools.product(
                *(reference._options(world, group, anchor) for group in wanted.groups)
            )
        )
    }


def _violated(world: World, wanted, explanation: dict) -> bool:
    """Whether the provider really breaks the rule the explanation names."""
    provider = world.by_uuid(explanation["uuid"])
    group = next(g for g in wanted.groups if g.suffix == explanation["group"])
    rule, name = explanation["rule"], explanation["resource_class"]
    inv = provider.inventories.get(name) if name else None
    amount = group.resources.get(name, 0) if name else 0
    root = world.providers[world.root(provider.id)]
    checks = {
        "no_inventory": lambda: inv is None,
        "capacity": lambda: provider.used.get(name, 0) + amount > inv.capacity,
        "min_unit": lambda: amount < inv.min_unit,
        "max_unit": lambda: amount > inv.max_unit,
        "step_size": lambda: amount % inv.step_size != 0,
        "missing_trait": lambda: not provider.traits & set(explanation["numbers"]["required"]),
        "forbidden_trait": lambda: bool(provider.traits & group.traits.forbidden),
        "not_in_aggregate": lambda: (
            not (
                reference._in_all(provider.aggregates, group.aggregates.member_of)
                or (
                    not group.granular
                    and reference._in_all(root.aggregates, group.aggregates.member_of)
                )
            )
        ),
        "forbidden_aggregate": lambda: bool(
            (provider.aggregates | (root.aggregates if not group.granular else set()))
            & group.aggregates.forbidden
        ),
        "outside_tree": lambda: root.id != world.root(world.by_uuid(group.in_tree).id),
    }
    return checks[rule]()


def _refusal(world: World, explanation: dict) -> tuple[str, str, str | None]:
    """(group, provider, class) a provider explanation says never happens:
    the unsuffixed group of a nested or sharing world is refused class by
    class, any other group (or a rule not about a class) as a whole."""
    flat = not any(p.parent or SHARING in p.traits for p in world.providers.values())
    by_class = explanation["group"] == "" and not flat
    return (
        explanation["group"],
        explanation["uuid"],
        explanation["resource_class"] if by_class else None,
    )


def _used(wanted, body: dict) -> set[tuple[str, str, str | None]]:
    """(group, provider, None) for each provider a group's mapping names, and
    (group, provider, class) when that group alone asks for the class."""
    askers: dict[str, set[str]] = {}
    for group in wanted.groups:
        for name in group.resources:
            askers.setdefault(name, set()).add(group.suffix)
    used: set[tuple[str, str, str | None]] = set()
    for request in body["allocation_requests"]:
        for suffix, providers in request["mappings"].items():
            for provider in providers:
                used.add((suffix, provider, None))
                # A resourceless group's provider may allocate nothing.
                for name in request["allocations"].get(provider, {}).get("resources", {}):
                    if askers.get(name) == {suffix}:
                        used.add((suffix, provider, name))
    return used


@on_database(60)
@given(data=st.data())
def test_explanation_agrees_with_candidates_and_reference(db_engine, data):
    drawn = draw_request(data)
    if drawn is None:
        return
    world, version, pairs, wanted = drawn.world, drawn.version, drawn.pairs, drawn.wanted
    write(db_engine, world)
    try:
        body = json.loads(engine.find(db_engine, wanted, engine.Settings()))
        document = explain.explain(db_engine, wanted)
    finally:
        erase(db_engine, world)
    anchors = {world.providers[p].uuid for p in _reference_anchors(world, wanted)}
    qualifying = {tree["uuid"] for tree in document["trees"] if tree["qualifies"]}
    assert qualifying == anchors, pairs
    assert bool(body["allocation_requests"]) == bool(qualifying), pairs
    found = document["explanations"]
    explained_trees = {e["uuid"] for e in found if e["level"] == "tree"}
    request_wide = any(e["level"] == "request" for e in found)
    for tree in document["trees"]:
        if tree["qualifies"]:
            assert tree["uuid"] not in explained_trees, pairs
        else:
            assert tree["uuid"] in explained_trees or request_wide, pairs
    if version >= mv.MAPPINGS:
        refused = {_refusal(world, e) for e in found if e["level"] == "provider"}
        assert not _used(wanted, body) & refused, pairs
    for explanation in found:
        if explanation["level"] == "provider":
            assert _violated(world, wanted, explanation), (pairs, explanation)
