"""Several writers of one provider with the same generation: exactly one wins.

The losers get 409 ``placement.concurrent_update`` (whether the handler saw
the stale generation first or the compare-and-swap caught it) and nothing
of theirs is left behind.
"""

from __future__ import annotations

import uuid

import pytest

from placement import errors
from placement.objects import aggregate as agg_obj
from placement.objects import exceptions
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from tests.rig import call, run_together

WRITERS = 6


@pytest.fixture
def provider_uuid(app) -> str:
    status, body = call(app, "POST", "/resource_providers", {"name": "contended"})
    assert status == 200
    return body["uuid"]


def _winner(results: list[tuple[int, dict]]) -> int:
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * (WRITERS - 1), results
    for status, body in results:
        if status == 409:
            assert body["errors"][0]["code"] == errors.CONCURRENT_UPDATE
    return next(i for i, (status, _) in enumerate(results) if status == 200)


def test_concurrent_inventory_replacements(app, provider_uuid):
    path = f"/resource_providers/{provider_uuid}/inventories"
    results = run_together(
        WRITERS,
        lambda i: call(
            app,
            "PUT",
            path,
            {
                "resource_provider_generation": 0,
                "inventories": {"VCPU": {"total": 10 + i}, "DISK_GB": {"total": 100 + i}},
            },
        ),
    )
    winner = _winner(results)
    status, body = call(app, "GET", path)
    assert body["resource_provider_generation"] == 1
    assert body["inventories"]["VCPU"]["total"] == 10 + winner
    assert body["inventories"]["DISK_GB"]["total"] == 100 + winner


def test_concurrent_single_inventory_updates(app, provider_uuid):
    path = f"/resource_providers/{provider_uuid}/inventories"
    call(
        app, "PUT", path, {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 1}}}
    )
    results = run_together(
        WRITERS,
        lambda i: call(
            app, "PUT", f"{path}/VCPU", {"resource_provider_generation": 1, "total": 20 + i}
        ),
    )
    winner = _winner(results)
    status, body = call(app, "GET", f"{path}/VCPU")
    assert (body["total"], body["resource_provider_generation"]) == (20 + winner, 2)


def test_concurrent_aggregate_replacements(app, provider_uuid):
    path = f"/resource_providers/{provider_uuid}/aggregates"
    sets = [[str(uuid.uuid4()), str(uuid.uuid4())] for _ in range(WRITERS)]
    results = run_together(
        WRITERS,
        lambda i: call(
            app,
            "PUT",
            path,
            {"resource_provider_generation": 0, "aggregates": sets[i]},
            version="1.23",
        ),
    )
    winner = _winner(results)
    status, body = call(app, "GET", path, version="1.23")
    assert sorted(body["aggregates"]) == sorted(sets[winner])
    assert body["resource_provider_generation"] == 1


def test_object_layer_writers_with_one_stale_view(engine, provider_uuid):
    """Straight to the object layer: every thread holds the same provider read."""
    provider = rp_obj.find(engine, provider_uuid)

    def write(i: int) -> int:
        if i % 2:
            return agg_obj.set_aggregates(
                engine, provider, [str(uuid.uuid4())], increment_generation=True
            )
        return inv_obj.set_inventories(engine, provider, {"VCPU": {"total": 1 + i}})

    results = run_together(WRITERS, write)
    assert sorted(r for r in results if isinstance(r, int)) == [1]
    losers = [r for r in results if not isinstance(r, int)]
    assert len(losers) == WRITERS - 1
    assert all(isinstance(r, exceptions.ConcurrentUpdate) for r in losers), losers
    assert rp_obj.find(engine, provider_uuid).generation == 1
