"""Choosing the planner: by name, or the configured default when the solution names none."""

import pytest

from placement.actionplans.errors import UnknownPlanner
from placement.actionplans.planners import PLANNERS, PlannerOptions, make_plan
from tests.actionplans.builders import nop, parents


def test_the_three_planners_are_known():
    assert set(PLANNERS) == {"weight", "workload_stabilization", "node_resource_consolidation"}


def test_no_planner_named_uses_the_configured_default():
    actions = [nop("a"), nop("b")]
    stabilized = make_plan(None, actions, PlannerOptions(default_planner="workload_stabilization"))
    assert parents(stabilized) == {0: [], 1: []}
    assert parents(make_plan(None, actions, PlannerOptions())) == {0: [], 1: [0]}


def test_an_unknown_planner_is_refused():
    with pytest.raises(UnknownPlanner, match="Planner fastest could not be found"):
        make_plan("fastest", [nop()], PlannerOptions())
