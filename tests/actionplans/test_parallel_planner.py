"""The planner of zone_migration's plans (doc/planner.md §4, §9): solution order, at most
``total`` actions at once and ``per_node`` per source node, by lanes of parents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from placement.actionplans.errors import UnsupportedActionType
from placement.actionplans.planners import PlannerOptions, make_plan, parallel
from tests.actionplans.builders import migrate, nop, parents


def test_lanes_of_the_total_and_of_each_node():
    """Five migrates, nodes a a b a b, at most three at once and two per node: the third
    of ``a`` (3) waits for the first (0); past three, each waits for the one three
    before (3 for 0, 4 for 1)."""
    actions = [
        migrate("i0", "a"),
        migrate("i1", "a"),
        migrate("i2", "b"),
        migrate("i3", "a"),
        migrate("i4", "b"),
    ]
    plan = make_plan(parallel.limited(3, 2), actions, PlannerOptions())
    assert plan.order() == [0, 1, 2, 3, 4]
    assert parents(plan) == {0: [], 1: [], 2: [], 3: [0], 4: [1]}


def test_one_per_node_chains_each_node():
    actions = [migrate("i0", "a"), migrate("i1", "b"), migrate("i2", "a"), migrate("i3", "b")]
    plan = make_plan(parallel.limited(6, 1), actions, PlannerOptions())
    assert parents(plan) == {0: [], 1: [], 2: [0], 3: [1]}


def test_limits_below_one_count_as_one():
    actions = [migrate("i0", "a"), migrate("i1", "b"), migrate("i2", "c")]
    assert parents(make_plan(parallel.limited(0, 0), actions, PlannerOptions())) == {
        0: [],
        1: [0],
        2: [1],
    }


def test_nodes_are_compared_by_name():
    """A node given by uuid in one action and by name in another is one lane."""
    actions = [migrate("i0", "uuid-a"), migrate("i1", "a")]
    names = {"uuid-a": "a"}
    plan = make_plan(
        parallel.limited(6, 1), actions, PlannerOptions(), node_name=lambda n: names.get(n, n)
    )
    assert parents(plan) == {0: [], 1: [0]}


def test_only_migrates_are_placed():
    with pytest.raises(UnsupportedActionType, match="zone_migration planner"):
        make_plan(parallel.limited(2, 2), [migrate("i0", "a"), nop()], PlannerOptions())


def _ancestors(plan) -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    for planned in plan.actions:
        found[planned.index] = set(planned.parents).union(
            *(found[parent] for parent in planned.parents)
        )
    return found


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=14),
    st.integers(0, 5),
    st.integers(0, 4),
)
def test_actions_sharing_a_lane_never_run_together(nodes, total, per_node):
    """Every ``total``-th action, and every ``per_node``-th action of one node, is
    ordered after the earlier ones of its lane: so no more than ``total`` (and no more
    than ``per_node`` of one node) can be running at once, whatever the durations."""
    actions = [migrate(f"i{i}", node) for i, node in enumerate(nodes)]
    plan = make_plan(parallel.limited(total, per_node), actions, PlannerOptions())
    ancestors = _ancestors(plan)
    assert all(parent < planned.index for planned in plan.actions for parent in planned.parents)
    lane = max(total, 1)
    for later in range(len(actions)):
        for earlier in range(later % lane, later, lane):
            assert earlier in ancestors[later]
    for node in set(nodes):
        mine = [i for i, n in enumerate(nodes) if n == node]
        width = max(per_node, 1)
        for position, later in enumerate(mine):
            for earlier in mine[position % width : position : width]:
                assert earlier in ancestors[later]
