"""The engine against the brute-force reference, on small random worlds.

Hypothesis draws a few provider trees (nesting, sharing providers,
aggregates, traits, inventories with every constraint, existing usage) and a
request using every query feature the microversion allows; the engine and
:mod:`tests.candidates.reference` must return the same candidates and
summarize the same providers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placement import errors
from placement import microversion as mv
from placement.candidates import engine
from placement.candidates import request as candidate_request
from tests import rig
from tests.candidates import reference
from tests.candidates.world import (
    CUSTOM_CLASS,
    SHARING,
    Inventory,
    World,
    aggregate_uuid,
    erase,
    write,
)

CLASSES = ["VCPU", "DISK_GB", CUSTOM_CLASS]
TRAITS = ["HW_CPU_X86_AVX", "STORAGE_DISK_SSD"]
AGGREGATES = [aggregate_uuid(1), aggregate_uuid(2)]
VERSIONS = [mv.Version(1, 28), mv.Version(1, 33), mv.Version(1, 36), mv.Version(1, 39)]


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


inventory = st.builds(
    Inventory,
    total=st.integers(1, 4),
    reserved=st.sampled_from([0, 0, 0, 1]),
    min_unit=st.sampled_from([1, 1, 1, 2]),
    max_unit=st.sampled_from([1, 2, 4, 2147483647]),
    step_size=st.sampled_from([1, 1, 1, 2]),
    allocation_ratio=st.sampled_from([1.0, 1.0, 1.5]),
)
inventories = st.lists(st.sampled_from(CLASSES), min_size=1, max_size=3, unique=True).flatmap(
    lambda names: st.fixed_dictionaries({name: inventory for name in names})
)


@st.composite
def worlds(draw) -> World:
    world = World()

    def provider(parent: int | None, sharing: bool = False) -> int:
        invs = draw(inventories)
        invs = {
            name: inv if inv.reserved < inv.total else Inventory(inv.total)
            for name, inv in invs.items()
        }
        used = {name: draw(st.integers(1, 2)) for name in invs if draw(st.integers(0, 3)) == 0}
        traits = set(draw(st.sets(st.sampled_from(TRAITS), max_size=1 if sharing else 2)))
        if sharing:
            traits.add(SHARING)
        aggs = set(draw(st.sets(st.sampled_from(AGGREGATES))))
        return world.add(
            parent,
            inventories=invs,
            used={k: v for k, v in used.items() if v},
            traits=traits,
            aggregates=aggs,
        ).id

    for _ in range(draw(st.integers(1, 3))):
        root = provider(None)
        for _ in range(draw(st.integers(0, 2))):
            child = provider(root)
            if draw(st.booleans()):
                provider(child)
    for _ in range(draw(st.integers(0, 2))):
        provider(None, sharing=True)
    return world


@st.composite
def queries(draw, world: World) -> tuple[mv.Version, list[tuple[str, str]]]:
    version = draw(st.sampled_from(VERSIONS))
    uuids = [p.uuid for p in world.providers.values()]
    pairs: list[tuple[str, str]] = []

    def group(suffix: str, resourceless: bool) -> None:
        if not resourceless:
            names = draw(
                st.lists(
                    st.sampled_from(CLASSES),
                    min_size=1,
                    max_size=draw(st.sampled_from([1, 1, 2])),
                    unique=True,
                )
            )
            pairs.append(
                (
                    f"resources{suffix}",
                    ",".join(f"{n}:{draw(st.sampled_from([1, 1, 1, 2]))}" for n in names),
                )
            )
        traits = []
        if draw(st.integers(0, 2)) == 0:
            traits = draw(
                st.lists(
                    st.sampled_from(TRAITS + ["!" + t for t in TRAITS]),
                    min_size=1,
                    max_size=2,
                    unique=True,
                )
            )
        if resourceless and not any(not t.startswith("!") for t in traits):
            traits.append(draw(st.sampled_from(TRAITS)))
        if traits:
            pairs.append((f"required{suffix}", ",".join(traits)))
        if version >= mv.ANY_OF_TRAITS and draw(st.integers(0, 3)) == 0:
            pairs.append((f"required{suffix}", "in:" + ",".join(TRAITS)))
        if draw(st.integers(0, 4)) == 0:
            pairs.append(
                (
                    f"member_of{suffix}",
                    draw(
                        st.sampled_from(
                            AGGREGATES + ["in:" + ",".join(AGGREGATES), "!" + AGGREGATES[0]]
                        )
                    ),
                )
            )
        if draw(st.integers(0, 4)) == 0:
            pairs.append((f"in_tree{suffix}", draw(st.sampled_from(uuids))))

    if draw(st.booleans()):
        group("", False)
    suffixes = []
    for index in range(
        draw(st.sampled_from([0, 1, 1, 2, 2, 3]) if pairs else st.sampled_from([1, 1, 2, 3]))
    ):
        suffix = f"_G{index}" if version >= mv.STRING_SUFFIXES else str(index + 1)
        resourceless = version >= mv.SAME_SUBTREE and index > 0 and draw(st.booleans())
        group(suffix, resourceless)
        suffixes.append((suffix, resourceless))
    if suffixes:
        pairs.append(("group_policy", draw(st.sampled_from(["none", "isolate"]))))
    if version >= mv.SAME_SUBTREE and suffixes:
        named = {s for s, resourceless in suffixes if resourceless or draw(st.booleans())}
        if named:
            pairs.append(("same_subtree", ",".join(sorted(named))))
    if version >= mv.ROOT_REQUIRED and draw(st.integers(0, 4)) == 0:
        pairs.append(("root_required", draw(st.sampled_from(TRAITS + ["!" + t for t in TRAITS]))))
    return version, pairs


def _key(request: dict, with_mappings: bool):
    allocations = tuple(
        sorted(
            (u, rc, n)
            for u, body in request["allocations"].items()
            for rc, n in body["resources"].items()
        )
    )
    if not with_mappings:
        return allocations
    return allocations, tuple(
        sorted((s, tuple(sorted(ps))) for s, ps in request["mappings"].items())
    )


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_engine_matches_reference(db_engine, data):
    world = data.draw(worlds())
    version, pairs = data.draw(queries(world))
    try:
        wanted = candidate_request.parse(pairs, version)
    except errors.BadRequest:
        return
    expected, shown = reference.answer(world, wanted)
    write(db_engine, world)
    try:
        body = json.loads(engine.find(db_engine, wanted, engine.Settings()))
    finally:
        erase(db_engine, world)
    with_mappings = version >= mv.MAPPINGS
    got = sorted(_key(ar, with_mappings) for ar in body["allocation_requests"])
    want = sorted(key if with_mappings else key[0] for key in expected)
    assert got == want, pairs
    assert set(body["provider_summaries"]) == shown, pairs
