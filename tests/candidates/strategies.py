"""Hypothesis strategies for the candidates engine: small worlds and the requests to ask them.

Worlds hold a few provider trees (nesting, sharing providers, aggregates,
traits, inventories with every constraint, existing usage); requests use every
query feature the drawn microversion allows.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from placement import errors
from placement import microversion as mv
from placement.candidates import request as candidate_request
from tests.candidates.world import (
    CUSTOM_CLASS,
    SHARING,
    Inventory,
    World,
    aggregate_uuid,
)


def on_database(max_examples: int) -> settings:
    """Settings for a property that writes each drawn world into a database
    (slow examples, a module-wide database fixture)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )


CLASSES = ["VCPU", "DISK_GB", CUSTOM_CLASS]
TRAITS = ["HW_CPU_X86_AVX", "STORAGE_DISK_SSD"]
AGGREGATES = [aggregate_uuid(1), aggregate_uuid(2)]
VERSIONS = [mv.Version(1, 28), mv.Version(1, 33), mv.Version(1, 36), mv.Version(1, 39)]


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


@dataclass(frozen=True)
class Drawn:
    """A world, a query on it, and the query as the engine takes it."""

    world: World
    version: mv.Version
    pairs: list[tuple[str, str]]
    wanted: candidate_request.CandidateRequest


def draw_request(data: st.DataObject) -> Drawn | None:
    """Draw a world and a query on it, parsed; None for a query the grammar
    refuses (a 400 is not a case for the engine's properties)."""
    world = data.draw(worlds())
    version, pairs = data.draw(queries(world))
    try:
        wanted = candidate_request.parse(pairs, version)
    except errors.BadRequest:
        return None
    return Drawn(world, version, pairs, wanted)
