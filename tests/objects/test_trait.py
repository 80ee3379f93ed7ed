"""Traits: lookups, provider trait generations, and concurrent provider writes."""

from __future__ import annotations

import uuid

import os_traits
import pytest
from sqlalchemy import insert, select, update

from placement.db import reader, tables, writer
from placement.objects import exceptions
from placement.objects import trait as trait_obj
from tests.rig import call, run_together


def _provider(engine) -> str:
    """A root provider written straight to its table (generation 0)."""
    rp = tables.resource_providers
    new = str(uuid.uuid4())
    with writer(engine) as conn:
        rp_id = conn.execute(
            insert(rp).values(uuid=new, name=f"rp-{new[:8]}", generation=0)
        ).inserted_primary_key[0]
        conn.execute(update(rp).where(rp.c.id == rp_id).values(root_provider_id=rp_id))
    return new


def _generation(engine, provider_uuid: str) -> int:
    rp = tables.resource_providers
    with reader(engine) as conn:
        return conn.execute(select(rp.c.generation).where(rp.c.uuid == provider_uuid)).scalar()


def test_standard_traits_are_synced(engine):
    names = {trait.name for trait in trait_obj.list_traits(engine)}
    assert set(os_traits.get_traits()) <= names


def test_lookups_map_names_to_ids_exactly(engine):
    trait_obj.ensure(engine, "CUSTOM_LOOKUP")
    with reader(engine) as conn:
        assert trait_obj.trait_id(conn, "CUSTOM_LOOKUP") != trait_obj.trait_id(
            conn, "HW_CPU_X86_AVX"
        )
        with pytest.raises(
            exceptions.TraitNotFound, match=r"^No such trait\(s\): custom_lookup\.$"
        ):
            trait_obj.trait_id(conn, "custom_lookup")


def test_ensure_reports_whether_it_created(engine):
    created, first = trait_obj.ensure(engine, "CUSTOM_ONCE")
    again, second = trait_obj.ensure(engine, "CUSTOM_ONCE")
    assert (created, again) == (True, False)
    assert first.id == second.id and second.created_at is not None


def test_startswith_is_a_like_prefix(engine):
    for name in ("CUSTOM_AB", "CUSTOM_AXB", "CUSTOM_XAXB"):
        trait_obj.ensure(engine, name)
    # ``_`` is LIKE's any-one-character wildcard, and the match is anchored.
    names = [t.name for t in trait_obj.list_traits(engine, prefix="CUSTOM_A_B")]
    assert names == ["CUSTOM_AXB"]


def test_generation_moves_only_when_the_set_changes(engine):
    rp = _provider(engine)
    trait_obj.clear_provider_traits(engine, rp)
    assert _generation(engine, rp) == 0  # nothing to delete: no bump
    result = trait_obj.set_provider_traits(engine, rp, 0, ["HW_CPU_X86_AVX", "HW_CPU_X86_AVX"])
    assert result.generation == 1 and [t.name for t in result.traits] == ["HW_CPU_X86_AVX"]
    assert trait_obj.set_provider_traits(engine, rp, 1, ["HW_CPU_X86_AVX"]).generation == 1
    trait_obj.clear_provider_traits(engine, rp)
    assert _generation(engine, rp) == 2


def test_failed_set_changes_nothing(engine):
    rp = _provider(engine)
    with pytest.raises(exceptions.TraitNotFound, match="^No such trait CUSTOM_NOPE$"):
        trait_obj.set_provider_traits(engine, rp, 0, ["HW_CPU_X86_AVX", "CUSTOM_NOPE"])
    with pytest.raises(exceptions.StaleGeneration):
        trait_obj.set_provider_traits(engine, rp, 7, ["HW_CPU_X86_AVX"])
    assert trait_obj.provider_traits(engine, rp).traits == []
    assert _generation(engine, rp) == 0


def test_concurrent_puts_with_one_generation_have_one_winner(app, engine):
    rp = _provider(engine)
    choices = sorted(os_traits.get_traits())[:8]

    def put(i: int) -> tuple:
        return call(
            app,
            "PUT",
            f"/resource_providers/{rp}/traits",
            {"traits": [choices[i]], "resource_provider_generation": 0},
        )

    results = run_together(len(choices), put)
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * (len(choices) - 1)
    for status, body in results:
        if status == 409:
            assert body["errors"][0]["code"] == "placement.concurrent_update"
    winner = next(body for status, body in results if status == 200)
    assert winner["resource_provider_generation"] == 1
    stored = trait_obj.provider_traits(engine, rp)
    assert stored.generation == 1
    assert [t.name for t in stored.traits] == winner["traits"]
