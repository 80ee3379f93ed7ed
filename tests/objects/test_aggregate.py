"""Provider aggregates: rows created on first use and shared, generations."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from placement.db import reader, tables
from placement.objects import aggregate as agg_obj
from placement.objects import resource_provider as rp_obj


def _new(engine, name: str) -> rp_obj.Provider:
    return rp_obj.create_provider(engine, name=name, uuid=str(uuid.uuid4()))


def _aggregate_rows(engine) -> int:
    with reader(engine) as conn:
        return conn.execute(select(func.count()).select_from(tables.placement_aggregates)).scalar()


def test_aggregates_are_created_once_and_shared(engine):
    first, second = _new(engine, "first"), _new(engine, "second")
    shared, own = str(uuid.uuid4()), str(uuid.uuid4())
    agg_obj.set_aggregates(engine, first, [shared, own], increment_generation=False)
    agg_obj.set_aggregates(engine, second, [shared], increment_generation=False)
    assert _aggregate_rows(engine) == 2
    assert sorted(agg_obj.list_for_provider(engine, first)) == sorted([shared, own])
    assert agg_obj.list_for_provider(engine, second) == [shared]


def test_replacing_keeps_unlisted_aggregate_rows(engine):
    provider = _new(engine, "p")
    old, new = str(uuid.uuid4()), str(uuid.uuid4())
    agg_obj.set_aggregates(engine, provider, [old], increment_generation=False)
    agg_obj.set_aggregates(engine, provider, [new], increment_generation=False)
    assert agg_obj.list_for_provider(engine, provider) == [new]
    assert _aggregate_rows(engine) == 2


def test_the_generation_moves_only_when_asked(engine):
    provider = _new(engine, "p")
    assert agg_obj.set_aggregates(engine, provider, [], increment_generation=False) == 0
    assert rp_obj.find(engine, provider.uuid).generation == 0
    assert agg_obj.set_aggregates(engine, provider, [], increment_generation=True) == 1
    assert rp_obj.find(engine, provider.uuid).generation == 1


def test_thousands_of_new_aggregates_in_one_set(engine):
    """More than one lookup batch, each row created once, all linked."""
    provider, other = _new(engine, "p"), _new(engine, "o")
    uuids = [str(uuid.uuid4()) for _ in range(2500)]
    agg_obj.set_aggregates(engine, provider, uuids, increment_generation=False)
    agg_obj.set_aggregates(engine, other, uuids[1000:1500], increment_generation=False)
    assert sorted(agg_obj.list_for_provider(engine, provider)) == sorted(uuids)
    assert sorted(agg_obj.list_for_provider(engine, other)) == sorted(uuids[1000:1500])
    assert _aggregate_rows(engine) == 2500


def test_a_uuid_in_other_case_is_matched_as_the_database_matches(engine):
    """A case-insensitive MySQL collation finds the existing row (its unique
    key would refuse another); elsewhere the other case is another aggregate."""
    provider = _new(engine, "p")
    lower = str(uuid.uuid4())
    agg_obj.set_aggregates(engine, provider, [lower], increment_generation=False)
    agg_obj.set_aggregates(engine, provider, [lower, lower.upper()], increment_generation=False)
    case_insensitive = _aggregate_rows(engine) == 1
    assert _aggregate_rows(engine) in (1, 2)
    assert case_insensitive == (engine.dialect.name == "mysql")
