"""The workload_stabilization planner against doc/planner.md §2's examples."""

from dataclasses import replace

import pytest

from placement.actionplans.action_types import (
    BUILTIN,
    CONSUMER,
    PROVIDER,
    ActionTypeDeclaration,
    ResourceKind,
)
from placement.actionplans.errors import ConsumerHasNoAllocations, UnsupportedActionType
from placement.actionplans.model import ProposedAction
from placement.actionplans.planners import PlannerOptions, make_plan
from tests.actionplans.builders import (
    migrate,
    nop,
    parents,
    power_down,
    resize,
    service_state,
    sleep,
)

VM = [f"00000000-0000-4000-8000-00000000000{n}" for n in range(8)]


def _plan(actions, hosts=None, weights=None):
    hosts = hosts or {}
    options = PlannerOptions(
        stabilization_weights=weights or PlannerOptions().stabilization_weights
    )
    return make_plan("workload_stabilization", actions, options, hosts.__getitem__)


def test_the_seeds_graph_comes_out_as_drawn():
    a1 = service_state("h1", "disabled")
    a2 = migrate(VM[2], "h1")
    a3 = migrate(VM[3], "h2")
    a31 = resize(VM[3])
    a4 = resize(VM[4])
    a5 = migrate(VM[5], "h2")
    a51 = resize(VM[5])
    plan = _plan([a1, a2, a3, a31, a4, a5, a51], hosts={VM[3]: "h2", VM[4]: "h3", VM[5]: "h2"})
    assert parents(plan) == {0: [], 1: [], 2: [], 3: [2], 4: [], 5: [], 6: [5]}
    # heaviest first, ties in solution order: disable, migrates, resizes
    assert plan.order() == [0, 1, 2, 5, 3, 4, 6]


def test_powering_a_host_down_waits_for_its_resizes_then_its_uncovered_migrates():
    actions = [
        migrate(VM[1], "h1"),  # 0
        resize(VM[1]),  # 1, waits for 0
        migrate(VM[2], "h1"),  # 2
        resize(VM[3]),  # 3, VM[3] lives on h1
        power_down("h1"),  # 4
        service_state("h1", "disabled"),  # 5, ignored by the power-down
    ]
    plan = _plan(actions, hosts={VM[1]: "h1", VM[3]: "h1"})
    assert parents(plan)[4] == [1, 3, 2]
    assert plan.order() == [5, 0, 2, 1, 3, 4]


def test_powering_another_host_down_waits_for_nothing():
    plan = _plan([migrate(VM[1], "h1"), power_down("h2")])
    assert parents(plan) == {0: [], 1: []}


def test_sleep_and_nop_stand_alone():
    plan = _plan([sleep(), nop(), migrate(VM[1], "h1")])
    assert parents(plan) == {0: [], 1: [], 2: []}
    assert plan.order() == [1, 0, 2]


def test_two_migrations_of_one_instance_run_one_after_the_other():
    plan = _plan([migrate(VM[1], "h1", "h2"), migrate(VM[1], "h2", "h3")])
    assert parents(plan) == {0: [], 1: [0]}


def test_two_resizes_of_one_instance_run_one_after_the_other():
    plan = _plan([resize(VM[1], "a"), resize(VM[1], "b")], hosts={VM[1]: "h1"})
    assert parents(plan) == {0: [], 1: [0]}


def test_a_resize_weighted_before_its_migrate_still_comes_first_and_is_waited_for():
    weights = {"migrate": 1, "resize": 2}
    plan = _plan([migrate(VM[1], "h1"), resize(VM[1])], hosts={VM[1]: "h1"}, weights=weights)
    assert plan.order() == [1, 0]
    assert parents(plan) == {1: [], 0: [1]}


def test_a_resize_waits_for_every_earlier_migration_of_its_instance_once():
    plan = _plan([migrate(VM[1], "h1"), migrate(VM[1], "h2"), resize(VM[1])], hosts={VM[1]: "h1"})
    assert parents(plan) == {0: [], 1: [0], 2: [0, 1]}


@pytest.mark.parametrize("action_type", ["volume_migrate", "stop", "change_node_power_state"])
def test_other_types_are_refused(action_type):
    with pytest.raises(UnsupportedActionType) as caught:
        _plan([nop(), ProposedAction(action_type, {"resource_id": VM[1]})])
    assert (caught.value.index, caught.value.action_type) == (1, action_type)
    assert "workload_stabilization planner" in str(caught.value)


def test_a_type_missing_from_configured_weights_is_refused():
    with pytest.raises(UnsupportedActionType, match="sleep"):
        _plan([nop(), sleep()], weights={"nop": 1})


def test_a_configured_weight_does_not_make_a_type_placeable_its_declaration_refuses():
    with pytest.raises(UnsupportedActionType, match="stop"):
        _plan([ProposedAction("stop", {"resource_id": VM[1]})], weights={"stop": 1})


def _declared(name: str, kind: ResourceKind | None) -> PlannerOptions:
    """Options knowing one more type, ``name``, which this planner may place."""
    declaration = ActionTypeDeclaration(name, {}, 45, 1, kind, stabilization_weight=2)
    defaults = PlannerOptions()
    return replace(
        defaults,
        stabilization_weights={**defaults.stabilization_weights, name: 2},
        action_types={**BUILTIN, name: declaration},
    )


def test_a_declared_type_on_an_instance_waits_for_the_last_action_on_it():
    options = _declared("snapshot", CONSUMER)
    actions = [migrate(VM[1], "h1"), ProposedAction("snapshot", {"resource_id": VM[1]})]
    plan = make_plan("workload_stabilization", actions, options, {}.__getitem__)
    assert parents(plan) == {0: [], 1: [0]}


def test_a_declared_type_on_a_node_stands_alone():
    options = _declared("drain", PROVIDER)
    actions = [migrate(VM[1], "h1"), ProposedAction("drain", {"resource_id": VM[1]})]
    plan = make_plan("workload_stabilization", actions, options, {}.__getitem__)
    assert parents(plan) == {0: [], 1: []}


def test_an_instance_without_allocations_stops_planning():
    def no_allocations(resource_id):
        raise ConsumerHasNoAllocations(resource_id)

    with pytest.raises(ConsumerHasNoAllocations, match=VM[1]):
        make_plan("workload_stabilization", [resize(VM[1])], PlannerOptions(), no_allocations)


def test_resizes_need_a_current_host_lookup():
    with pytest.raises(ValueError, match="current_host"):
        make_plan("workload_stabilization", [resize(VM[1])], PlannerOptions())


def test_nodes_named_by_uuid_or_by_name_are_one_host():
    h1_uuid = "9d3c1b7e-1111-4222-8333-444455556666"
    names = {h1_uuid: "h1"}
    actions = [migrate(VM[1], "h1"), power_down(h1_uuid), migrate(VM[2], h1_uuid)]
    plan = make_plan(
        "workload_stabilization",
        actions,
        PlannerOptions(),
        {}.__getitem__,
        lambda node: names.get(node, node),
    )
    assert parents(plan)[1] == [0, 2]
    # the plan keeps the actions as given
    assert plan.actions[-1].action.input_parameters["resource_id"] == h1_uuid
