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
from hypothesis import given
from hypothesis import strategies as st

from placement import microversion as mv
from placement.candidates import engine
from tests import rig
from tests.candidates import reference
from tests.candidates.strategies import draw_request, on_database
from tests.candidates.world import erase, write


@pytest.fixture(scope="module", params=rig.backends())
def db_engine(request: pytest.FixtureRequest) -> Iterator:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


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


@on_database(80)
@given(data=st.data())
def test_engine_matches_reference(db_engine, data):
    drawn = draw_request(data)
    if drawn is None:
        return
    world, version, pairs, wanted = drawn.world, drawn.version, drawn.pairs, drawn.wanted
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
