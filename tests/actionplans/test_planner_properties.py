"""Invariants of the planners on random solutions (hypothesis).

Every plan holds each action once, every parent comes earlier in plan order (so the
graph is acyclic); the weight planner's layers are at most the parallelization wide
and fully linked to the layer before; under workload_stabilization any two actions on
one instance are ordered, and every link upstream would make is in our order.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from placement.actionplans.model import Plan
from placement.actionplans.planners import PlannerOptions, make_plan
from placement.actionplans.planners.options import DEFAULT_STABILIZATION_WEIGHTS
from tests.actionplans import solution_strategies as gen
from tests.actionplans.upstream_links import upstream_parents

ON_INSTANCE = ("migrate", "resize")


def assert_well_formed(plan: Plan, size: int) -> None:
    """A permutation of the solution whose parents all come earlier in plan order."""
    assert sorted(plan.order()) == list(range(size))
    position = {index: at for at, index in enumerate(plan.order())}
    for planned in plan.actions:
        assert len(set(planned.parents)) == len(planned.parents)
        assert all(position[parent] < position[planned.index] for parent in planned.parents)


def ancestors(plan: Plan) -> dict[int, set[int]]:
    """Each index mapped to everything it transitively waits for."""
    found: dict[int, set[int]] = {}
    for planned in plan.actions:  # parents come earlier, so they are done already
        found[planned.index] = set(planned.parents).union(*(found[p] for p in planned.parents))
    return found


def layers(plan: Plan) -> list[list[int]]:
    """Consecutive runs of actions sharing one parents tuple."""
    runs: list[list[int]] = []
    last: tuple[int, ...] | None = None
    for planned in plan.actions:
        if planned.parents != last:
            runs.append([])
            last = planned.parents
        runs[-1].append(planned.index)
    return runs


@given(st.lists(gen.weight_actions, max_size=15), gen.weight_tables(), gen.parallelizations)
def test_weight_plans_are_layers_of_bounded_width_linked_in_full(actions, weights, widths):
    options = PlannerOptions(weight_weights=weights, weight_parallelization=widths)
    plan = make_plan("weight", actions, options)
    assert_well_formed(plan, len(actions))
    by_index = plan.parents_by_index()
    previous: list[int] = []
    for layer in layers(plan):
        types = {actions[i].action_type for i in layer}
        assert len({weights[t] for t in types}) == 1
        weight = weights[next(iter(types))]
        present = {a.action_type for a in actions if weights[a.action_type] == weight}
        # the smallest parallelization among the types of the group; missing or < 1 is 1
        assert len(layer) <= min(max(1, widths.get(t, 1)) for t in present)
        assert all(by_index[i] == tuple(previous) for i in layer)
        previous = layer
    ordered_weights = [weights[actions[i].action_type] for i in plan.order()]
    assert ordered_weights == sorted(ordered_weights, reverse=True)


@given(gen.stabilization_cases)
def test_stabilization_orders_each_instance_and_contains_upstreams_links(case):
    options = PlannerOptions(stabilization_weights=case.weights)
    plan = make_plan("workload_stabilization", case.actions, options, case.hosts.__getitem__)
    assert_well_formed(plan, len(case.actions))
    before = ancestors(plan)
    on_instance = [i for i, a in enumerate(case.actions) if a.action_type in ON_INSTANCE]
    for i in on_instance:
        for j in on_instance:
            if i < j and case.actions[i].resource_id == case.actions[j].resource_id:
                assert i in before[j] or j in before[i]
    for index, upstream in upstream_parents(
        case.actions, case.weights, case.hosts.__getitem__
    ).items():
        assert set(upstream) <= before[index]


@given(st.lists(gen.stabilization_actions, max_size=12), gen.current_hosts)
def test_stabilization_equals_upstream_with_one_migrate_and_one_resize_per_instance(actions, hosts):
    kept, seen = [], set()
    for action in actions:
        key = (action.action_type, action.resource_id)
        if action.action_type in ON_INSTANCE and key in seen:
            continue
        seen.add(key)
        kept.append(action)
    plan = make_plan("workload_stabilization", kept, PlannerOptions(), hosts.__getitem__)
    expected = upstream_parents(kept, DEFAULT_STABILIZATION_WEIGHTS, hosts.__getitem__)
    assert {i: list(p) for i, p in plan.parents_by_index().items()} == expected


@given(st.lists(gen.consolidation_actions, max_size=12))
def test_consolidation_plans_are_well_formed_and_drain_each_node_in_order(actions):
    plan = make_plan("node_resource_consolidation", actions, PlannerOptions())
    assert_well_formed(plan, len(actions))
    before = ancestors(plan)
    migrations = [i for i, a in enumerate(actions) if a.action_type == "migrate"]
    for i in migrations:
        for j in migrations:
            same_node = (
                actions[i].input_parameters["source_node"]
                == actions[j].input_parameters["source_node"]
            )
            if i < j and same_node:
                assert i in before[j]


@given(st.sampled_from(["weight", "workload_stabilization"]), gen.stabilization_cases)
def test_planners_are_deterministic(planner, case):
    options = PlannerOptions(stabilization_weights=case.weights)
    first = make_plan(planner, case.actions, options, case.hosts.__getitem__)
    again = make_plan(planner, list(case.actions), options, case.hosts.__getitem__)
    assert first == again
