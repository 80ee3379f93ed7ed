"""The pipeline's values: the plan derived from the groups, and no SQL module
loaded by the pure steps."""

from __future__ import annotations

import subprocess
import sys

import pytest

from placement.candidates.model import (
    AggregateIds,
    Plan,
    ResolvedGroup,
    Rules,
    Shape,
    SlotSpec,
    TraitIds,
)

#: What a pure step must not pull in, directly or through another module.
SQL = ("sqlalchemy", "placement.db", "placement.objects")


@pytest.mark.parametrize(
    "module",
    ["placement.candidates.model", "placement.candidates.combine", "placement.candidates.output"],
)
def test_pure_step_imports_no_sql_module(module: str) -> None:
    # A fresh interpreter: this one has loaded everything already.
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {module}; print(' '.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert [name for name in loaded if name.startswith(SQL)] == []


def test_plan_puts_unsuffixed_classes_first_and_knows_summed_classes() -> None:
    vcpu, disk = 0, 2
    traits = TraitIds((frozenset({7}), frozenset({8, 9})))
    groups = (
        ResolvedGroup("_A", ((vcpu, 1),), TraitIds(), AggregateIds()),
        ResolvedGroup("", ((vcpu, 2), (disk, 5)), traits, AggregateIds()),
    )
    plan = Plan.of(groups, Shape(False, False), TraitIds(), isolate=True)
    assert plan.specs == (
        SlotSpec("", False, ((vcpu, 2),)),
        SlotSpec("", False, ((disk, 5),)),
        SlotSpec("_A", True, ((vcpu, 1),)),
    )
    assert plan.summed == {vcpu}
    # Both required sets of the unsuffixed group must be covered.
    assert plan.rules == Rules(isolate=True, trait_bits=0b11)
    assert not plan.one_provider_each
