"""Solutions keep the strategy's order and drop exact duplicates (JSON equality)."""

import pytest

from placement.actionplans.jsonvalues import json_equal
from placement.actionplans.model import ProposedAction
from placement.actionplans.solution import Solution


def test_actions_keep_their_order_and_the_first_duplicate_stays():
    solution = Solution()
    solution.add("nop", {"message": "a"})
    solution.add("sleep", {"duration": 1})
    solution.add("sleep", {"duration": 1.0})
    solution.add("nop", {"message": "b"})
    solution.add("nop", {"message": "a"})
    assert solution.actions == [
        ProposedAction("nop", {"message": "a"}),
        ProposedAction("sleep", {"duration": 1}),
        ProposedAction("nop", {"message": "b"}),
    ]


def test_same_parameters_of_another_type_are_not_a_duplicate():
    solution = Solution()
    solution.add("stop", {"resource_id": "x"})
    solution.add("shelve", {"resource_id": "x"})
    assert len(solution.actions) == 2


def test_added_parameters_are_copied():
    params = {"message": "a"}
    solution = Solution()
    solution.add("nop", params)
    params["message"] = "changed"
    assert solution.actions[0].input_parameters == {"message": "a"}


def test_a_new_solution_is_empty_and_names_no_planner():
    solution = Solution()
    assert (solution.actions, solution.efficacy_indicators, solution.global_efficacy) == (
        [],
        [],
        [],
    )
    assert solution.planner is None


@pytest.mark.parametrize(
    "left, right, equal",
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        (None, None, True),
        ("1", 1, False),
        ({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]}, True),
        ({"a": 1}, {"a": 1, "b": None}, False),
        ([1, 2], [2, 1], False),
        ([1], (1,), True),
        (2**60 + 1, float(2**60), False),
        (0.5, 0.5, True),
    ],
)
def test_json_equality(left, right, equal):
    assert json_equal(left, right) is equal
    assert json_equal(right, left) is equal


def test_only_json_values_have_keys():
    with pytest.raises(TypeError, match="not a JSON value"):
        json_equal({1, 2}, {1, 2})
