"""Parsing the query string into request groups: shapes, rules and error order."""

from __future__ import annotations

import pytest

from placement import errors
from placement import microversion as mv
from placement.candidates.request import parse

AGG_A = "11111111-1111-1111-1111-111111111111"
AGG_B = "22222222-2222-2222-2222-222222222222"
TREE = "33333333-3333-3333-3333-333333333333"
LATEST = mv.MAX_VERSION


def _error(pairs, version=LATEST) -> errors.BadRequest:
    with pytest.raises(errors.BadRequest) as caught:
        parse(pairs, version)
    return caught.value


def test_groups_keep_the_order_of_their_first_key():
    request = parse(
        [
            ("resources_B", "VCPU:1"),
            ("resources", "DISK_GB:10"),
            ("required_B", "HW_CPU_X86_AVX"),
            ("resources_A", "VGPU:1"),
            ("group_policy", "none"),
        ],
        LATEST,
    )
    assert [g.suffix for g in request.groups] == ["_B", "", "_A"]
    assert [g.granular for g in request.groups] == [True, False, True]
    assert request.groups[0].traits.required == (frozenset({"HW_CPU_X86_AVX"}),)
    assert request.requested_classes == {"VCPU", "DISK_GB", "VGPU"}


def test_string_suffixes_need_1_33():
    request = parse([("resources", "VCPU:1"), ("resources_A", "VGPU:1")], mv.Version(1, 32))
    assert [g.suffix for g in request.groups] == [""]


def test_repeated_resources_last_wins_but_every_value_is_checked():
    assert parse([("resources", "VCPU:1"), ("resources", "VCPU:2")], LATEST).groups[
        0
    ].resources == {"VCPU": 2}
    assert (
        "requires amount >= 1. Got: 0."
        in _error([("resources", "VCPU:0"), ("resources", "VCPU:2")]).message
    )


def test_required_repeats_are_anded_from_1_39_and_last_wins_before():
    pairs = [("resources", "VCPU:1"), ("required", "A_T"), ("required", "in:B_T,C_T")]
    assert parse(pairs, LATEST).groups[0].traits.required == (
        frozenset({"A_T"}),
        frozenset({"B_T", "C_T"}),
    )
    pairs = [("resources", "VCPU:1"), ("required", "A_T"), ("required", "B_T")]
    assert parse(pairs, mv.Version(1, 38)).groups[0].traits.required == (frozenset({"B_T"}),)


def test_member_of_and_in_tree():
    group = parse(
        [
            ("resources", "VCPU:1"),
            ("member_of", f"in:{AGG_A},{AGG_B}"),
            ("member_of", f"!{AGG_A}"),
            ("in_tree", f" {TREE} "),
        ],
        LATEST,
    ).groups[0]
    assert group.aggregates.member_of == (frozenset({AGG_A, AGG_B}),)
    assert group.aggregates.forbidden == frozenset({AGG_A})
    assert group.in_tree == TREE
    assert (
        "Expected 'in_tree' parameter to be a format of uuid. Got: nope"
        in _error([("resources", "VCPU:1"), ("in_tree", "nope")]).message
    )


def test_request_wide_parameters():
    request = parse(
        [
            ("resources", "VCPU:1"),
            ("limit", "5"),
            ("limit", "1"),
            ("group_policy", "isolate"),
            ("group_policy", "none"),
            ("root_required", "HW_CPU_X86_AVX,!CUSTOM_X"),
        ],
        LATEST,
    )
    assert (request.limit, request.isolate) == (5, True)
    assert request.root_traits.required == (frozenset({"HW_CPU_X86_AVX"}),)
    assert request.root_traits.forbidden == {"CUSTOM_X"}
    assert request.nested_aware
    assert not parse([("resources", "VCPU:1")], mv.Version(1, 28)).nested_aware


def test_first_limit_must_be_a_positive_integer():
    assert (
        "does not match"
        in _error([("resources", "VCPU:1"), ("limit", "abc"), ("limit", "1")]).message
    )


def test_root_required_errors():
    error = _error([("resources", "VCPU:1"), ("root_required", "A"), ("root_required", "B")])
    assert error.code == errors.QUERY_DUPLICATE_KEY
    error = _error([("resources", "VCPU:1"), ("root_required", "A_T,!A_T")])
    assert (error.code, error.message) == (
        errors.QUERY_BAD_VALUE,
        "Conflicting required and forbidden traits found in root_required: A_T",
    )
    assert (
        "only supported since microversion 1.39"
        in _error([("resources", "VCPU:1"), ("root_required", "in:A_T,B_T")]).message
    )


def test_same_subtree():
    request = parse(
        [
            ("resources_A", "VCPU:1"),
            ("required_B", "HW_NUMA_ROOT"),
            ("same_subtree", "_A, _B"),
            ("group_policy", "none"),
        ],
        LATEST,
    )
    assert request.same_subtrees == (frozenset({"_A", "_B"}),)
    error = _error([("resources_A", "VCPU:1"), ("same_subtree", "_A,,_B")])
    assert error.code == errors.QUERY_BAD_VALUE
    assert error.message.startswith("Empty string (unsuffixed group) can not be specified")
    error = _error(
        [
            ("resources_A", "VCPU:1"),
            ("resources_B", "VCPU:1"),
            ("same_subtree", "_A,_C"),
            ("group_policy", "none"),
        ]
    )
    assert error.message == (
        "Real suffixes should be specified in `same_subtree`: ['_C'] not found in ['_A', '_B']."
    )


def test_resourceless_groups_from_1_36():
    error = _error(
        [("resources_A", "VCPU:1"), ("required_B", "HW_NUMA_ROOT"), ("group_policy", "none")]
    )
    assert error.code == errors.QUERY_BAD_VALUE
    assert "bad group(s) - ['_B']." in error.message
    error = _error([("member_of1", AGG_A)])
    assert error.code == errors.QUERY_MISSING_VALUE
    assert error.message == "There must be at least one resources or resources[$S] parameter."


def test_orphans_before_1_36():
    version = mv.Version(1, 35)
    assert _error([("required", "A_T"), ("required1", "B_T")], version).message.endswith(
        "orphaned traits keys: required, required1"
    )
    assert _error([("member_of", AGG_A)], version).message.endswith(
        "orphaned member_of keys: member_of"
    )
    assert (
        _error([("resources", "VCPU:1"), ("in_tree1", TREE)], version).message
        == "All request groups must specify resources."
    )
    assert _error([("group_policy", "none")], version).message.startswith(
        "At least one request group"
    )


def test_conflicting_traits_from_1_22():
    message = _error([("resources", "VCPU:1"), ("required", "A_T,!A_T")]).message
    assert message == (
        "Conflicting required and forbidden traits found in the following "
        "traits keys: required: (A_T)"
    )
    # An in: set conflicts only when all its members are forbidden.
    parse([("resources", "VCPU:1"), ("required", "in:A_T,B_T"), ("required", "!A_T")], LATEST)


def test_group_policy_is_needed_for_two_suffixed_groups():
    assert "group_policy" in _error([("resources1", "VCPU:1"), ("resources2", "VCPU:1")]).message
    parse([("resources", "VCPU:1"), ("resources1", "VCPU:1")], LATEST)


def test_request_wide_errors_come_before_group_errors():
    pairs = [("resources", "bad"), ("root_required", "A"), ("root_required", "B")]
    assert _error(pairs).code == errors.QUERY_DUPLICATE_KEY


def test_group_errors_follow_query_order():
    pairs = [("member_of", "bad"), ("resources", "")]
    assert "Expected 'member_of' parameter" in _error(pairs).message
