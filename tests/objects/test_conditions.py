"""The shared SQL vocabulary: name lookups of filters, and capacity."""

from __future__ import annotations

import uuid

import pytest

from placement.db import reader, tables
from placement.filters import AggregateFilter, TraitFilter
from placement.objects import aggregate, conditions, exceptions
from placement.objects import resource_provider as rp_obj
from placement.objects import trait as trait_obj


def test_trait_ids_keep_the_sets_and_name_the_first_unknown_trait(engine):
    trait_obj.ensure(engine, "CUSTOM_LOOKUP")
    with reader(engine) as conn:
        lookup = trait_obj.trait_id(conn, "CUSTOM_LOOKUP")
        avx = trait_obj.trait_id(conn, "HW_CPU_X86_AVX")
        wanted = TraitFilter(
            (frozenset({"CUSTOM_LOOKUP", "HW_CPU_X86_AVX"}),), frozenset({"HW_CPU_X86_AVX"})
        )
        assert conditions.trait_ids(conn, wanted, message="{name}") == TraitFilter(
            (frozenset({lookup, avx}),), frozenset({avx})
        )
        # Each required set's names sorted, then the forbidden ones: custom_b first.
        unknown = TraitFilter((frozenset({"custom_lookup", "CUSTOM_B"}),), frozenset({"CUSTOM_A"}))
        with pytest.raises(exceptions.TraitNotFound, match="^missing CUSTOM_B$"):
            conditions.trait_ids(conn, unknown, message="missing {name}")
        everyone = "^missing CUSTOM_B, custom_lookup, CUSTOM_A$"
        with pytest.raises(exceptions.TraitNotFound, match=everyone) as caught:
            conditions.trait_ids(conn, unknown, message="missing {names}")
        assert caught.value.names == ("CUSTOM_B", "custom_lookup", "CUSTOM_A")


def test_aggregate_ids_drop_unknown_aggregates(engine):
    provider = rp_obj.create_provider(engine, name="agg", uuid=str(uuid.uuid4()))
    known, unknown = str(uuid.uuid4()), str(uuid.uuid4())
    aggregate.set_aggregates(engine, provider, [known], increment_generation=True)
    with reader(engine) as conn:
        found = conditions.aggregate_ids(
            conn,
            AggregateFilter(
                (frozenset({known, unknown}), frozenset({unknown})), frozenset({unknown, known})
            ),
        )
        (agg_id,) = found.forbidden
        assert found == AggregateFilter((frozenset({agg_id}), frozenset()), frozenset({agg_id}))
        rp = tables.resource_providers
        member = conditions.in_aggregates(rp.c.id, AggregateFilter(found.member_of[:1]))
        assert conditions.anyone(conn, *member)
        nobody = conditions.in_aggregates(rp.c.id, AggregateFilter(found.member_of[1:]))
        assert not conditions.anyone(conn, *nobody)


def test_capacity_is_one_expression_for_values_and_columns():
    assert conditions.capacity(10, 2, 1.5) == 12.0
    assert int(conditions.capacity(7, 0, 1.1)) == 7
    inv = tables.inventories
    sql = conditions.capacity(inv.c.total, inv.c.reserved, inv.c.allocation_ratio)
    assert str(sql) == ("(inventories.total - inventories.reserved) * inventories.allocation_ratio")
