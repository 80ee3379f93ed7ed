"""The node_resource_consolidation planner (doc/planner.md §3)."""

import pytest

from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.planners import PlannerOptions, make_plan
from tests.actionplans.builders import migrate, parents, service_state, sleep

VM = [f"00000000-0000-4000-8000-00000000000{n}" for n in range(6)]


def _plan(actions):
    return make_plan("node_resource_consolidation", actions, PlannerOptions())


def test_disable_drain_node_by_node_then_enable():
    actions = [
        service_state("h1", "disabled"),
        migrate(VM[0], "h1"),
        migrate(VM[1], "h2"),
        service_state("h2", "disabled"),
        migrate(VM[2], "h1"),
        migrate(VM[3], "h2"),
        migrate(VM[4], "h1"),
        service_state("h1", "enabled"),
        service_state("h2", "enabled"),
    ]
    plan = _plan(actions)
    assert plan.order() == [0, 3, 1, 4, 6, 2, 5, 7, 8]
    assert parents(plan) == {
        0: [],
        3: [],
        1: [0, 3],
        4: [0, 3, 1],
        6: [0, 3, 4],
        2: [0, 3],
        5: [0, 3, 2],
        7: [6, 5],
        8: [6, 5],
    }


def test_any_state_but_disabled_is_an_enable():
    plan = _plan([migrate(VM[0], "h1"), service_state("h1", "up"), service_state("h1", "down")])
    assert plan.order() == [0, 1, 2]
    assert parents(plan) == {0: [], 1: [0], 2: [0]}


def test_enables_without_migrations_have_no_parents():
    plan = _plan([service_state("h1", "disabled"), service_state("h1", "enabled")])
    assert parents(plan) == {0: [], 1: []}


def test_other_types_are_refused():
    with pytest.raises(UnsupportedActionType) as caught:
        _plan([migrate(VM[0], "h1"), sleep()])
    assert (caught.value.index, caught.value.action_type) == (1, "sleep")
    assert "node_resource_consolidation planner" in str(caught.value)


def test_migrations_from_one_node_named_two_ways_form_one_chain():
    names = {"uuid-of-h1": "h1"}
    actions = [migrate(VM[0], "h1"), migrate(VM[1], "uuid-of-h1")]
    plan = make_plan(
        "node_resource_consolidation",
        actions,
        PlannerOptions(),
        node_name=lambda node: names.get(node, node),
    )
    assert parents(plan) == {0: [], 1: [0]}
    assert plan.actions[1].action is actions[1]
