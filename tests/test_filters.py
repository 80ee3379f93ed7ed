"""The query-string parsers shared by provider lists and allocation candidates."""

from __future__ import annotations

import pytest

from placement import errors, filters
from placement import microversion as mv

V = mv.Version
AGG_A = "7fade9e1-ab01-4d1b-84db-ac74f740bb42"
AGG_B = "f1e5a94b-1a3c-4c16-8b49-67e8e1de1f2e"


def test_resources_become_amounts_and_the_last_repeat_wins():
    assert filters.parse_resources("VCPU:2,MEMORY_MB:1024,VCPU:4") == {"VCPU": 4, "MEMORY_MB": 1024}


@pytest.mark.parametrize(
    "value, message",
    [
        ("", "Got: empty string."),
        ("  ", "Got: empty string."),
        ("VCPU", "Got: VCPU."),
        ("VCPU:1,", "Got: ."),
        ("VCPU:1:2", "Got: VCPU:1:2."),
        ("VCPU:x", "Requested resource VCPU expected positive integer amount. Got: x."),
        ("VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0."),
        ("VCPU:-2", "Requested resource VCPU requires amount >= 1. Got: -2."),
    ],
    ids=[
        "empty",
        "blank",
        "no-amount",
        "trailing-comma",
        "two-colons",
        "not-an-int",
        "zero",
        "negative",
    ],
)
def test_badly_formed_resources(value, message):
    with pytest.raises(errors.BadRequest) as caught:
        filters.parse_resources(value)
    assert caught.value.message.endswith(message)


def test_required_traits_and_forbidden_ones():
    parsed = filters.parse_required([" A , !B,!!!C"], V(1, 22))
    assert parsed == filters.TraitFilter((frozenset({"A"}),), frozenset({"B", "C"}))


def test_before_1_39_only_the_last_required_counts():
    assert filters.parse_required(["A", "B"], V(1, 38)).required == (frozenset({"B"}),)
    assert filters.parse_required(["A", "B"], V(1, 39)).required == (
        frozenset({"A"}),
        frozenset({"B"}),
    )


def test_any_of_traits_from_1_39():
    parsed = filters.parse_required(["in:A, B", "C,!D"], V(1, 39))
    assert parsed.required == (frozenset({"A", "B"}), frozenset({"C"}))
    assert parsed.forbidden == frozenset({"D"})


@pytest.mark.parametrize(
    "value, version, message",
    [
        (
            "!A",
            V(1, 21),
            "Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !A",
        ),
        (
            "A,,B",
            V(1, 21),
            "Expected 'required' parameter value of the form: "
            "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: A,,B",
        ),
        (
            "A,!",
            V(1, 22),
            "Expected 'required' parameter value of the form: "
            "HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: A,!",
        ),
        (
            "in:A,B",
            V(1, 38),
            "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
            "microversion 1.39. Got: in:A,B",
        ),
        (
            "in:A,!B",
            V(1, 39),
            "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support "
            "forbidden traits. Got: in:A,!B",
        ),
        (
            "in:A,",
            V(1, 39),
            "Expected 'required' parameter value of the form: "
            "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: in:A,",
        ),
    ],
    ids=[
        "forbidden-before-1.22",
        "empty-item",
        "empty-forbidden",
        "any-of-before-1.39",
        "any-of-with-forbidden",
        "any-of-empty-item",
    ],
)
def test_badly_formed_required(value, version, message):
    with pytest.raises(errors.BadRequest) as caught:
        filters.parse_required([value], version)
    assert caught.value.message == f"Invalid query string parameters: {message}"


def test_member_of_forms():
    assert filters.parse_member_of([AGG_A], V(1, 3)) == filters.AggregateFilter(
        (frozenset({AGG_A}),)
    )
    assert filters.parse_member_of([f"in:{AGG_A},{AGG_B}"], V(1, 3)).member_of == (
        frozenset({AGG_A, AGG_B}),
    )
    parsed = filters.parse_member_of([f"!{AGG_A}", f"!in:{AGG_B}", AGG_B], V(1, 32))
    assert parsed == filters.AggregateFilter((frozenset({AGG_B}),), frozenset({AGG_A, AGG_B}))


@pytest.mark.parametrize(
    "values, version, message",
    [
        ([AGG_A, AGG_B], V(1, 23), "Multiple member_of parameters are not supported"),
        (
            [f"!{AGG_A}"],
            V(1, 31),
            "Forbidden member_of parameters are not supported in the specified microversion",
        ),
        (
            [f"{AGG_A},{AGG_B}"],
            V(1, 39),
            "Multiple values for 'member_of' must be prefixed with "
            f"the 'in:' or '!in:' keyword using the valid microversion. Got: {AGG_A},{AGG_B}",
        ),
        (
            [f"in:{AGG_A},!{AGG_B}"],
            V(1, 39),
            "Invalid query string parameters: Expected "
            f"'member_of' parameter to contain valid UUID(s). Got: !{AGG_B}",
        ),
        (
            ["in:"],
            V(1, 39),
            "Invalid query string parameters: Expected 'member_of' parameter to "
            "contain valid UUID(s). Got: ",
        ),
    ],
    ids=[
        "repeated-before-1.24",
        "forbidden-before-1.32",
        "comma-without-in",
        "forbidden-inside-in",
        "empty-in",
    ],
)
def test_badly_formed_member_of(values, version, message):
    with pytest.raises(errors.BadRequest) as caught:
        filters.parse_member_of(values, version)
    assert caught.value.message == message


def test_member_of_errors_name_the_group_suffix():
    with pytest.raises(errors.BadRequest, match="^Multiple member_of_X parameters"):
        filters.parse_member_of([AGG_A, AGG_B], V(1, 23), suffix="_X")


def test_an_amount_beyond_any_inventory_is_asked_as_the_smallest_such():
    """However large (beyond 64 bits too), it finds nothing, as any such amount."""
    assert filters.parse_resources("VCPU:99999999999999999999999,DISK_GB:2147483647") == {
        "VCPU": filters.BEYOND_ANY_INVENTORY,
        "DISK_GB": 2147483647,
    }
