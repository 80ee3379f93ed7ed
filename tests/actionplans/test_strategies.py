"""The actuator and dummy strategies, through the one ``solve`` entry point."""

import pytest

from placement.actionplans.errors import (
    AuditParameterNotAllowed,
    InvalidAuditParameters,
    NotFound,
    ReservedWord,
    StrategyNotRunnable,
)
from placement.actionplans.model import ProposedAction
from placement.actionplans.strategies import solve


def _actuator(*items, **extra):
    return solve("actuator", {"actions": list(items), **extra})


def test_actuator_takes_the_actions_in_order_and_moves_resource_id_in():
    solution = _actuator(
        {"action_type": "sleep", "input_parameters": {"duration": 1}},
        {"action_type": "stop", "resource_id": "vm-1", "input_parameters": {}},
    )
    assert solution.actions == [
        ProposedAction("sleep", {"duration": 1}),
        ProposedAction("stop", {"resource_id": "vm-1"}),
    ]
    assert solution.planner is None
    assert (solution.efficacy_indicators, solution.global_efficacy) == ([], [])


def test_actuator_drops_exact_duplicates():
    item = {"action_type": "sleep", "input_parameters": {"duration": 1}}
    same = {"action_type": "sleep", "input_parameters": {"duration": 1.0}}
    assert len(_actuator(item, same).actions) == 1


def test_actuator_refuses_resource_id_inside_input_parameters():
    with pytest.raises(ReservedWord) as caught:
        _actuator(
            {"action_type": "nop", "input_parameters": {"message": "x"}},
            {"action_type": "stop", "input_parameters": {"resource_id": "vm-1"}},
        )
    assert caught.value.index == 1
    assert str(caught.value).endswith("The identifier 'resource_id' is a reserved word")


def test_actuator_passes_the_planner_on():
    assert _actuator(planner="workload_stabilization").planner == "workload_stabilization"


def test_actuator_parameters_are_validated():
    with pytest.raises(AuditParameterNotAllowed):
        _actuator({"action_type": "nop", "input_parameters": {}, "extra": 1})
    with pytest.raises(InvalidAuditParameters):
        solve("actuator", {})


def test_dummy_says_hello_twice_then_sleeps():
    solution = solve("dummy", {"para1": 2})
    assert solution.actions == [
        ProposedAction("nop", {"message": "hello World"}),
        ProposedAction("nop", {"message": "hello"}),
        ProposedAction("sleep", {"duration": 2}),
    ]
    assert solution.planner == "weight"


def test_the_solution_carries_the_parameters_as_checked():
    given = {"para1": 2}
    solution = solve("dummy", given)
    assert solution.parameters == {"para1": 2, "para2": "hello"}
    assert given == {"para1": 2}


def test_dummy_drops_the_second_nop_when_it_repeats_the_first():
    solution = solve("dummy", {"para2": "hello World"})
    assert [a.action_type for a in solution.actions] == ["nop", "sleep"]


def test_an_unknown_strategy_is_not_found():
    with pytest.raises(NotFound, match="^Strategy nosuch could not be found$"):
        solve("nosuch", {})


@pytest.mark.parametrize(
    "name",
    [
        "host_maintenance",
        "node_resource_consolidation",
        "saving_energy",
        "workload_stabilization",
        "zone_migration",
    ],
)
def test_capacity_strategies_refuse_to_plan_without_a_snapshot(name):
    """The strategies that read capacity make no plan without a world."""
    with pytest.raises(StrategyNotRunnable, match=name):
        solve(name, {"maintenance_node": "h1"} if name == "host_maintenance" else {})
