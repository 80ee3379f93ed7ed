"""Name lookups: exact, in the order given, and for any number of names."""

from __future__ import annotations

import pytest

from placement.db import reader, tables
from placement.objects import exceptions, lookup


def test_more_names_than_a_statement_binds_are_looked_up(engine):
    """40,000 names: more than SQLite binds in one statement (32,766)."""
    names = ["HW_CPU_X86_AVX", *(f"CUSTOM_UNKNOWN_{n}" for n in range(40_000)), "HW_CPU_X86_SSE"]
    with reader(engine) as conn, pytest.raises(exceptions.TraitNotFound) as caught:
        lookup.rows_by_name(
            conn,
            tables.traits,
            names,
            message="No such trait(s): {names}.",
            error=exceptions.TraitNotFound,
        )
    assert str(caught.value).startswith("No such trait(s): CUSTOM_UNKNOWN_0, CUSTOM_UNKNOWN_1,")
    with reader(engine) as conn:
        found = lookup.rows_by_name(
            conn,
            tables.traits,
            [names[-1], names[0]] * 20_000,
            message="{names}",
            error=exceptions.TraitNotFound,
        )
    assert list(found) == ["HW_CPU_X86_SSE", "HW_CPU_X86_AVX"]
