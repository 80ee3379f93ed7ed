"""The weight planner against doc/planner.md §1's worked examples and rules."""

import pytest

from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.model import ProposedAction
from placement.actionplans.planners import PlannerOptions, make_plan
from tests.actionplans.builders import nop, of_type, parents, sleep


def _plan(actions, weights=None, parallelization=None):
    options = PlannerOptions(
        weight_weights=weights if weights is not None else PlannerOptions().weight_weights,
        weight_parallelization=(
            parallelization
            if parallelization is not None
            else PlannerOptions().weight_parallelization
        ),
    )
    return make_plan("weight", actions, options)


def test_the_seeds_graph_comes_out_as_drawn():
    actions = of_type("sleep", 2) + of_type("migrate", 3) + of_type("resize", 3)
    plan = _plan(
        actions,
        weights={"sleep": 70, "migrate": 60, "resize": 50},
        parallelization={"sleep": 2, "migrate": 3, "resize": 2},
    )
    assert parents(plan) == {
        0: [],
        1: [],
        2: [0, 1],
        3: [0, 1],
        4: [0, 1],
        5: [2, 3, 4],
        6: [2, 3, 4],
        7: [5, 6],
    }
    assert plan.order() == list(range(8))


def test_seven_migrates_make_chunks_of_two():
    plan = _plan(of_type("migrate", 7))
    assert parents(plan) == {0: [], 1: [], 2: [0, 1], 3: [0, 1], 4: [2, 3], 5: [2, 3], 6: [4, 5]}


def test_weights_are_numbers_so_9_comes_after_70():
    plan = _plan(of_type("change_node_power_state", 1) + of_type("nop", 1))
    assert plan.order() == [1, 0]
    assert parents(plan) == {1: [], 0: [1]}


def test_heavier_groups_come_first_and_keep_solution_order_inside():
    actions = [sleep(1), nop("a"), sleep(2), nop("b")]
    plan = _plan(actions)
    assert plan.order() == [1, 3, 0, 2]
    assert parents(plan) == {1: [], 3: [1], 0: [3], 2: [0]}


def test_types_sharing_a_weight_share_chunks_of_the_smallest_parallelization():
    actions = of_type("migrate", 2) + of_type("resize", 2)
    plan = _plan(
        actions, weights={"migrate": 30, "resize": 30}, parallelization={"migrate": 3, "resize": 2}
    )
    assert parents(plan) == {0: [], 1: [], 2: [0, 1], 3: [0, 1]}


def test_a_type_without_parallelization_counts_as_one():
    actions = of_type("migrate", 2) + of_type("resize", 1)
    plan = _plan(actions, weights={"migrate": 30, "resize": 30}, parallelization={"migrate": 3})
    assert parents(plan) == {0: [], 1: [0], 2: [1]}


@pytest.mark.parametrize("value", [0, -3])
def test_parallelization_below_one_counts_as_one(value):
    plan = _plan(of_type("nop", 2), weights={"nop": 1}, parallelization={"nop": value})
    assert parents(plan) == {0: [], 1: [0]}


def test_dummy_solution_is_a_chain():
    plan = _plan([nop("hello World"), nop("hello"), sleep(3.2)])
    assert parents(plan) == {0: [], 1: [0], 2: [1]}


def test_a_chunk_may_follow_a_chunk_of_the_previous_group():
    plan = _plan(of_type("nop", 1) + of_type("migrate", 3))
    assert parents(plan) == {0: [], 1: [0], 2: [0], 3: [1, 2]}


def test_unknown_type_is_refused_with_its_index_and_type():
    with pytest.raises(UnsupportedActionType) as caught:
        _plan([nop(), ProposedAction("reboot", {})])
    assert (caught.value.index, caught.value.action_type) == (1, "reboot")
    assert str(caught.value) == (
        "actions[1].action_type: Provided reboot is not supported yet by the weight planner"
    )


def test_a_type_left_out_of_configured_weights_is_refused():
    with pytest.raises(UnsupportedActionType, match="actions\\[0\\].*sleep"):
        _plan([sleep()], weights={"nop": 1})


def test_empty_solution_gives_an_empty_plan():
    assert _plan([]).actions == ()
