"""Allocation writes beyond the HTTP stories: owners, rows left behind, retries.

These look at the database rows (consumers, projects, users) that the API
does not show, and drive the object layer directly where a race has to be
staged.
"""

from __future__ import annotations

import pytest
import sqlalchemy
from sqlalchemy import func, select

from placement.db import tables
from placement.objects import claim, claim_consumers, claim_providers, exceptions
from placement.objects import resource_provider as rp_obj
from tests import rig
from tests.apiclient import Api, body, error, new_uuid


def _count(engine: sqlalchemy.Engine, table: sqlalchemy.Table, **where: str) -> int:
    query = select(func.count()).select_from(table)
    for column, value in where.items():
        query = query.where(table.c[column] == value)
    with engine.connect() as conn:
        return conn.execute(query).scalar()


def _consumer_rows(api, consumer: str) -> int:
    return _count(api.engine, tables.consumers, uuid=consumer)


# --- owners ----------------------------------------------------------------------


def test_changing_project_and_user_updates_the_consumer(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}}, project="p1", user="u1")
    api.allocate(consumer, {a: {"VCPU": 1}}, generation=1, project="p2", user="u2")
    held = api.held(consumer)
    assert (held["project_id"], held["user_id"], held["consumer_generation"]) == ("p2", "u2", 2)
    usages = api.ok("GET", "/usages?project_id=p1", version="1.9").json()
    assert usages == {"usages": {}}


def test_write_below_1_8_resets_owner_but_keeps_type(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}}, project="p1", user="u1", consumer_type="MIGRATION")
    api.ok(
        "PUT",
        f"/allocations/{consumer}",
        {"allocations": [{"resource_provider": {"uuid": a}, "resources": {"VCPU": 2}}]},
        version="1.7",
    )
    held = api.held(consumer)
    placeholder = "00000000-0000-0000-0000-000000000000"
    assert (held["project_id"], held["user_id"]) == (placeholder, placeholder)
    assert held["consumer_type"] == "MIGRATION"


def test_placeholder_owner_comes_from_the_configuration(backend):
    overrides = {
        "placement": {
            "incomplete_consumer_project_id": "legacy-project",
            "incomplete_consumer_user_id": "legacy-user",
        }
    }
    with rig.placement_app(backend, **overrides) as (app, conf):
        api = Api(app, conf, backend)
        a = api.provider(VCPU={"total": 8})
        consumer = new_uuid()
        api.ok(
            "PUT",
            f"/allocations/{consumer}",
            {"allocations": [{"resource_provider": {"uuid": a}, "resources": {"VCPU": 1}}]},
            version="1.0",
        )
        held = api.held(consumer)
        assert (held["project_id"], held["user_id"]) == ("legacy-project", "legacy-user")


def test_types_are_created_once(api):
    a = api.provider(VCPU={"total": 8})
    for _ in range(2):
        api.allocate(new_uuid(), {a: {"VCPU": 1}}, consumer_type="CUSTOM_TYPE_ONCE")
    assert _count(api.engine, tables.consumer_types, name="CUSTOM_TYPE_ONCE") == 1


# --- nothing left behind by refused writes ------------------------------------------


@pytest.mark.parametrize(
    "case", ["missing provider", "unknown class", "no inventory", "capacity", "constraints"]
)
def test_refused_put_leaves_no_consumer(api, case):
    a = api.provider(VCPU={"total": 2, "max_unit": 1})
    consumer = new_uuid()
    project = f"project-{new_uuid()}"
    wanted = {
        "missing provider": {new_uuid(): {"VCPU": 1}},
        "unknown class": {a: {"CUSTOM_NOT_THERE": 1}},
        "no inventory": {a: {"DISK_GB": 1}},
        "capacity": {a: {"VCPU": 1}},
        "constraints": {a: {"VCPU": 2}},
    }[case]
    if case == "capacity":
        api.allocate(new_uuid(), {a: {"VCPU": 1}})
        api.allocate(new_uuid(), {a: {"VCPU": 1}})
    resp = api.allocate(consumer, wanted, project=project)
    assert resp.status_code in (400, 409)
    assert _consumer_rows(api, consumer) == 0
    # The owner rows are kept, as upstream keeps them.
    assert _count(api.engine, tables.projects, external_id=project) == 1
    # And the consumer is still new for the next write.
    assert api.allocate(consumer, {}).status_code == 204


def test_refused_post_leaves_none_of_its_new_consumers(api):
    a = api.provider(VCPU={"total": 8})
    existing, fresh = new_uuid(), new_uuid()
    api.allocate(existing, {a: {"VCPU": 1}})
    resp = api.post(
        "/allocations",
        json={fresh: body({a: {"VCPU": 1}}), existing: body({a: {"VCPU": 1}}, generation=5)},
        version="1.38",
    )
    assert error(resp)[:2] == (409, "placement.concurrent_update")
    assert _consumer_rows(api, fresh) == 0
    assert api.held(existing)["consumer_generation"] == 1


def test_delete_removes_the_consumer_row(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    api.ok("DELETE", f"/allocations/{consumer}")
    assert _consumer_rows(api, consumer) == 0


def test_emptied_consumer_row_is_removed(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    api.ok("POST", "/allocations", {consumer: body({}, generation=1)}, version="1.38")
    assert _consumer_rows(api, consumer) == 0


# --- retries ---------------------------------------------------------------------------


def test_each_retry_is_a_new_transaction(api):
    """A lost race rolls the attempt back; the next one starts from scratch."""
    a = api.provider(VCPU={"total": 8})
    calls = []

    def attempt(conn):
        calls.append(conn)
        provider = rp_obj.get_by_uuid(conn, a)
        rp_obj.increment_generation(conn, provider.id, provider.generation)
        if len(calls) < 3:
            raise exceptions.ConcurrentUpdate("provider")
        return provider.generation + 1

    before = api.generation(a)
    assert claim.retry_on_conflict(api.engine, attempt, attempts=5) == before + 1
    assert len(calls) == 3
    assert api.generation(a) == before + 1  # the two lost attempts were rolled back


def test_retries_are_bounded(api):
    calls = []

    def attempt(conn):
        calls.append(conn)
        raise exceptions.ConcurrentUpdate("provider")

    with pytest.raises(exceptions.ConcurrentUpdate) as raised:
        claim.retry_on_conflict(api.engine, attempt, attempts=4)
    assert len(calls) == 4
    assert raised.value.message == exceptions.CONCURRENT_UPDATE_MESSAGES["provider"]


def test_exhausted_retries_answer_409(api, monkeypatch):
    a = api.provider(VCPU={"total": 8})

    def always_lost(conn, provider_id, expected_generation):
        raise exceptions.ConcurrentUpdate("provider")

    monkeypatch.setattr(rp_obj, "increment_generation", always_lost)
    consumer = new_uuid()
    status, code, detail = error(api.allocate(consumer, {a: {"VCPU": 1}}))
    assert (status, code) == (409, "placement.concurrent_update")
    assert (
        "Inventory and/or allocations changed while attempting to allocate: Another "
        "thread concurrently updated the resource provider data."
    ) in detail
    monkeypatch.undo()
    assert api.held(consumer) == {"allocations": {}}
    assert _consumer_rows(api, consumer) == 0


def test_consumer_changed_under_a_write_is_a_409_without_retry(api):
    a = api.provider(VCPU={"total": 8})
    consumer = api.claim({a: {"VCPU": 1}})
    write = claim_consumers.ConsumerWrite(
        consumer, "project", "user", {a: {"VCPU": 2}}, generation=1
    )
    owners = claim_consumers.resolve_owners(api.engine, [write])
    calls = []

    def attempt(conn):
        calls.append(conn)
        consumers = claim_consumers.prepare_consumers(conn, [write], owners)
        # Another writer got there between our read and our swap.
        conn.execute(
            sqlalchemy.update(tables.consumers)
            .where(tables.consumers.c.uuid == consumer)
            .values(generation=tables.consumers.c.generation + 1)
        )
        claim.apply(
            conn, [write], owners, consumers, claim_providers.named_providers(conn, [write])
        )

    with pytest.raises(exceptions.ConcurrentUpdate) as raised:
        claim.retry_on_conflict(api.engine, attempt, attempts=5)
    assert len(calls) == 1
    assert raised.value.generation_of == "consumer"
    assert api.held(consumer)["consumer_generation"] == 1
