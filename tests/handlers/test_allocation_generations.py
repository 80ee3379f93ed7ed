"""Provider and consumer generations after allocation writes and reshapes.

One test per row of the generation rules: which writes move
which provider's generation, and how consumer generations start, move and
restart.
"""

from __future__ import annotations

from tests.apiclient import body, error, new_uuid

# --- provider generations ----------------------------------------------------


def test_put_bumps_every_named_provider_once(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(DISK_GB={"total": 100})
    before = api.generation(a), api.generation(b)
    consumer = new_uuid()
    assert api.allocate(consumer, {a: {"VCPU": 1}, b: {"DISK_GB": 5}}).status_code == 204
    assert (api.generation(a), api.generation(b)) == (before[0] + 1, before[1] + 1)


def test_post_bumps_a_provider_named_by_two_consumers_once(api):
    a = api.provider(VCPU={"total": 8})
    before = api.generation(a)
    api.ok(
        "POST",
        "/allocations",
        {new_uuid(): body({a: {"VCPU": 1}}), new_uuid(): body({a: {"VCPU": 2}})},
    )
    assert api.generation(a) == before + 1


def test_provider_left_out_of_a_new_set_is_not_bumped(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    before = api.generation(a), api.generation(b)
    assert api.allocate(consumer, {b: {"VCPU": 1}}, generation=1).status_code == 204
    assert api.usage(a) == {"VCPU": 0}
    assert (api.generation(a), api.generation(b)) == (before[0], before[1] + 1)


def test_emptied_consumer_bumps_the_providers_it_leaves(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}, b: {"VCPU": 1}})
    before = api.generation(a), api.generation(b)
    assert api.allocate(consumer, {}, generation=1).status_code == 204
    assert (api.generation(a), api.generation(b)) == (before[0] + 1, before[1] + 1)


def test_emptied_consumer_in_post_bumps_the_providers_it_leaves(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(VCPU={"total": 8})
    leaving, staying = new_uuid(), new_uuid()
    api.allocate(leaving, {a: {"VCPU": 1}})
    api.allocate(staying, {b: {"VCPU": 1}})
    before = api.generation(a), api.generation(b)
    api.ok("POST", "/allocations", {leaving: body({}, generation=1)}, version="1.38")
    assert (api.generation(a), api.generation(b)) == (before[0] + 1, before[1])


def test_delete_bumps_nothing(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    before = api.generation(a)
    api.ok("DELETE", f"/allocations/{consumer}")
    assert api.generation(a) == before
    assert api.usage(a) == {"VCPU": 0}


def test_failed_write_bumps_nothing(api):
    a, b = api.provider(VCPU={"total": 2}), api.provider(VCPU={"total": 2})
    before = api.generation(a), api.generation(b)
    resp = api.allocate(new_uuid(), {a: {"VCPU": 1}, b: {"VCPU": 3}})
    assert resp.status_code == 409
    assert (api.generation(a), api.generation(b)) == before


def _reshape(api, inventories: dict, allocations: dict, version: str = "1.38"):
    return api.ok(
        "POST",
        "/reshaper",
        {
            "inventories": {
                rp: {"resource_provider_generation": api.generation(rp), "inventories": inv}
                for rp, inv in inventories.items()
            },
            "allocations": allocations,
        },
        version=version,
    )


def test_reshape_non_empty_inventory_not_in_allocations_is_plus_two(api):
    a = api.provider(VCPU={"total": 8})
    before = api.generation(a)
    _reshape(api, {a: {"VCPU": {"total": 4}}}, {})
    assert api.generation(a) == before + 2


def test_reshape_empty_inventory_is_plus_one(api):
    a = api.provider(VCPU={"total": 8})
    before = api.generation(a)
    _reshape(api, {a: {}}, {})
    assert api.generation(a) == before + 1


def test_reshape_inventory_and_allocation_target_is_plus_three(api):
    a = api.provider(VCPU={"total": 8})
    before = api.generation(a)
    _reshape(api, {a: {"VCPU": {"total": 8}}}, {new_uuid(): body({a: {"VCPU": 2}})})
    assert api.generation(a) == before + 3


def test_reshape_empty_inventory_left_by_an_emptied_consumer_is_plus_two(api):
    root = api.provider(VCPU={"total": 8})
    child = api.provider(parent=root, VGPU={"total": 2})
    consumer = api.claim({child: {"VGPU": 1}})
    before = api.generation(child)
    _reshape(api, {child: {}}, {consumer: body({}, generation=1)})
    assert api.generation(child) == before + 2


def test_reshape_allocation_only_provider_is_plus_one(api):
    a, b = api.provider(VCPU={"total": 8}), api.provider(VCPU={"total": 8})
    before = api.generation(b)
    _reshape(api, {a: {"VCPU": {"total": 8}}}, {new_uuid(): body({b: {"VCPU": 1}})})
    assert api.generation(b) == before + 1


# --- consumer generations ------------------------------------------------------


def test_first_write_leaves_generation_one_and_each_write_adds_one(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    assert api.held(consumer)["consumer_generation"] == 1
    api.allocate(consumer, {a: {"VCPU": 1}}, generation=1)  # identical: still a bump
    api.allocate(consumer, {a: {"VCPU": 1}}, version="1.27")  # unchecked: still a bump
    api.ok(
        "PUT",
        f"/allocations/{consumer}",
        {"allocations": [{"resource_provider": {"uuid": a}, "resources": {"VCPU": 1}}]},
        version="1.0",
    )
    assert api.held(consumer)["consumer_generation"] == 4


def test_post_bumps_each_consumer(api):
    a = api.provider(VCPU={"total": 8})
    first, second = new_uuid(), new_uuid()
    api.allocate(first, {a: {"VCPU": 1}})
    api.ok(
        "POST",
        "/allocations",
        {first: body({a: {"VCPU": 2}}, generation=1), second: body({a: {"VCPU": 1}})},
    )
    assert api.held(first)["consumer_generation"] == 2
    assert api.held(second)["consumer_generation"] == 1


def test_reshape_bumps_listed_consumers_only(api):
    a = api.provider(VCPU={"total": 8})
    listed, other = new_uuid(), new_uuid()
    api.allocate(listed, {a: {"VCPU": 1}})
    api.allocate(other, {a: {"VCPU": 1}})
    _reshape(api, {a: {"VCPU": {"total": 8}}}, {listed: body({a: {"VCPU": 1}}, generation=1)})
    assert api.held(listed)["consumer_generation"] == 2
    assert api.held(other)["consumer_generation"] == 1


def test_generation_mismatches(api):
    a = api.provider(VCPU={"total": 8})
    consumer = new_uuid()
    assert error(api.allocate(consumer, {a: {"VCPU": 1}}, generation=3)) == (
        409,
        "placement.concurrent_update",
        _detail("consumer generation conflict - expected null but got 3"),
    )
    api.allocate(consumer, {a: {"VCPU": 1}})
    for given, shown in ((None, "None"), (0, "0"), (2, "2")):
        assert error(api.allocate(consumer, {a: {"VCPU": 1}}, generation=given)) == (
            409,
            "placement.concurrent_update",
            _detail(f"consumer generation conflict - expected 1 but got {shown}"),
        )
    assert api.held(consumer)["consumer_generation"] == 1


def test_older_writes_skip_the_check(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    assert api.allocate(consumer, {a: {"VCPU": 2}}, version="1.27").status_code == 204


def test_emptied_consumer_is_deleted_and_restarts_at_null(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    api.allocate(consumer, {}, generation=1)
    assert api.held(consumer) == {"allocations": {}}
    assert api.allocate(consumer, {a: {"VCPU": 1}}, generation=2).status_code == 409
    assert api.allocate(consumer, {a: {"VCPU": 1}}).status_code == 204
    assert api.held(consumer)["consumer_generation"] == 1


def test_deleted_consumer_restarts_at_null(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    api.ok("DELETE", f"/allocations/{consumer}")
    assert api.allocate(consumer, {a: {"VCPU": 1}}).status_code == 204


def test_empty_write_for_a_consumer_without_allocations_keeps_nothing(api):
    a = api.provider(VCPU={"total": 8})
    consumer = new_uuid()
    assert api.allocate(consumer, {}).status_code == 204
    assert api.allocate(consumer, {}).status_code == 204
    assert api.allocate(consumer, {a: {"VCPU": 1}}).status_code == 204
    assert api.held(consumer)["consumer_generation"] == 1


def _detail(message: str) -> str:
    return f"There was a conflict when trying to complete your request.\n\n {message}  "
