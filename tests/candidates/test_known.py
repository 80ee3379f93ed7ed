"""The summaries keep a provider's inventories and traits while its
generation stands (``placement/candidates/known.py``), and read everything
else every time.

The API tests go through the whole service on every backend; a direct
write that leaves the generation alone is how they see what was kept.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select, update

from placement.candidates.known import Details, Known, of
from placement.db import tables, writer
from tests import apiclient

QUERY = "/allocation_candidates?resources=VCPU:1"


def _summary(api: apiclient.Api, provider: str, version: str = "latest") -> dict:
    body = api.ok("GET", f"{QUERY}&in_tree={provider}", version=version).json()
    return body["provider_summaries"][provider]


def _capacity(api: apiclient.Api, provider: str) -> int:
    return _summary(api, provider)["resources"]["VCPU"]["capacity"]


def _write_total_behind_the_api(api: apiclient.Api, provider: str, total: int) -> None:
    """Change the VCPU total without bumping the generation, as no API write does."""
    rp, inv = tables.resource_providers, tables.inventories
    with writer(api.engine) as conn:
        provider_id = conn.execute(select(rp.c.id).where(rp.c.uuid == provider)).scalar_one()
        conn.execute(
            update(inv)
            .where(inv.c.resource_provider_id == provider_id, inv.c.resource_class_id == 0)
            .values(total=total)
        )


def _bump_behind_the_api(api: apiclient.Api, provider: str) -> None:
    rp = tables.resource_providers
    with writer(api.engine) as conn:
        conn.execute(update(rp).where(rp.c.uuid == provider).values(generation=rp.c.generation + 1))


def test_inventories_are_kept_while_the_generation_stands(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8})
    assert _capacity(api, provider) == 8
    _write_total_behind_the_api(api, provider, 6)
    assert _capacity(api, provider) == 8  # kept: the generation did not move
    _bump_behind_the_api(api, provider)
    assert _capacity(api, provider) == 6  # read again at the new generation


def test_an_inventory_update_shows_at_once(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 512})
    assert _capacity(api, provider) == 8
    api.set_inventory(provider, VCPU={"total": 4, "allocation_ratio": 2.0})
    assert _summary(api, provider)["resources"] == {"VCPU": {"capacity": 8, "used": 0}}
    api.set_inventory(provider, VCPU={"total": 3})
    assert _capacity(api, provider) == 3


def test_a_traits_update_shows_at_once(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8})
    assert _summary(api, provider)["traits"] == []
    api.ok(
        "PUT",
        f"/resource_providers/{provider}/traits",
        {"resource_provider_generation": api.generation(provider), "traits": ["HW_CPU_X86_AVX2"]},
    )
    assert _summary(api, provider)["traits"] == ["HW_CPU_X86_AVX2"]
    api.ok("DELETE", f"/resource_providers/{provider}/traits")
    assert _summary(api, provider)["traits"] == []


def test_usage_is_read_every_time(api: apiclient.Api) -> None:
    """Freeing allocations leaves the generation alone (as upstream)."""
    provider = api.provider(VCPU={"total": 8})
    consumer = str(uuid.uuid4())
    api.ok(
        "PUT",
        f"/allocations/{consumer}",
        {
            "allocations": {provider: {"resources": {"VCPU": 3}}},
            "project_id": "p",
            "user_id": "u",
            "consumer_generation": None,
        },
        version="1.28",
    )
    assert _summary(api, provider)["resources"]["VCPU"]["used"] == 3
    generation = api.generation(provider)
    api.ok("DELETE", f"/allocations/{consumer}")
    assert api.generation(provider) == generation
    assert _summary(api, provider)["resources"]["VCPU"]["used"] == 0


def test_class_names_are_read_every_time(api: apiclient.Api) -> None:
    """A custom class renamed at 1.2–1.6 moves no provider's generation."""
    old, new = f"CUSTOM_OLD_{uuid.uuid4().hex}".upper(), f"CUSTOM_NEW_{uuid.uuid4().hex}".upper()
    api.ok("POST", "/resource_classes", {"name": old}, version="1.2")
    provider = api.provider(VCPU={"total": 8}, **{old: {"total": 2}})
    assert set(_summary(api, provider)["resources"]) == {"VCPU", old}
    api.ok("PUT", f"/resource_classes/{old}", {"name": new}, version="1.2")
    assert set(_summary(api, provider)["resources"]) == {"VCPU", new}


def test_a_provider_made_again_under_its_uuid_shows_its_own_inventories(
    api: apiclient.Api,
) -> None:
    """On SQLite the new provider even gets the old one's id (it was the
    highest) and reaches the same generation: its creation time differs."""
    provider = api.provider(VCPU={"total": 8})
    assert _capacity(api, provider) == 8
    api.ok("DELETE", f"/resource_providers/{provider}/inventories")
    api.ok("DELETE", f"/resource_providers/{provider}")
    api.ok("POST", "/resource_providers", {"name": provider, "uuid": provider})
    api.set_inventory(provider, VCPU={"total": 5})
    assert _capacity(api, provider) == 5


def test_the_service_keeps_what_it_read_per_engine(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8})
    _summary(api, provider)
    rp = tables.resource_providers
    with writer(api.engine) as conn:
        provider_id, generation = conn.execute(
            select(rp.c.id, rp.c.generation).where(rp.c.uuid == provider)
        ).one()
    incarnation = None
    if api.backend == "sqlite":
        with writer(api.engine) as conn:
            incarnation = conn.exec_driver_sql(
                "SELECT created_at FROM resource_providers WHERE uuid = ?", (provider,)
            ).scalar_one()
    kept = of(api.engine).get(provider_id, provider, generation, incarnation)
    assert kept is not None and kept.inventories == ((0, 8),)


def _details(generation: int, uuid_: str = "u", incarnation: str | None = None) -> Details:
    return Details(uuid_, generation, incarnation, ((0, 8),), ("HW_CPU_X86_AVX2",))


def test_an_entry_holds_only_for_its_uuid_and_generation() -> None:
    known = Known()
    known.put(1, _details(3))
    assert known.get(1, "u", 3) == _details(3)
    assert known.get(1, "u", 4) is None
    assert known.get(1, "other", 3) is None
    assert known.get(2, "u", 3) is None
    known.put(5, _details(1, incarnation="2026-11-25 02:30:49.451737"))
    assert known.get(5, "u", 1, "2026-11-25 02:30:49.451737") is not None
    assert known.get(5, "u", 1, "2026-11-25 02:30:49.475718") is None


def test_providers_of_one_model_share_their_values() -> None:
    known = Known()
    first = known.put(1, _details(1, "a"))
    second = known.put(2, _details(1, "b"))
    assert second.inventories is first.inventories
    assert second.traits is first.traits


def test_a_full_cache_starts_again_empty() -> None:
    known = Known(limit=2)
    known.put(1, _details(1))
    known.put(2, _details(1))
    assert len(known) == 2
    known.put(3, _details(1))
    assert len(known) == 1
    assert known.get(1, "u", 1) is None
    assert known.get(3, "u", 1) is not None
