"""Plans: start (compare-and-swap, one winner), PATCH state rules, delete, lists."""

from __future__ import annotations

import pytest

from placement.actionplans import errors
from placement.db import actionplan_tables as t
from placement.objects.actionplans import actions, plans
from placement.objects.actionplans.paging import Page
from tests import rig


def test_start_once(store):
    plan = store.plan_of(store.audit())
    started = plans.start_plan(store.engine, plan.uuid)
    assert started.state == "PENDING"
    assert started.updated_at is not None
    with pytest.raises(errors.StartError, match=r"^Couldn't start when state is 'PENDING'\.$"):
        plans.start_plan(store.engine, plan.uuid)


def test_concurrent_starts_have_one_winner(store):
    plan = store.plan_of(store.audit())
    results = rig.run_together(6, lambda _i: plans.start_plan(store.engine, plan.uuid))
    won = [r for r in results if isinstance(r, plans.ActionPlan)]
    lost = [r for r in results if not isinstance(r, plans.ActionPlan)]
    assert len(won) == 1 and won[0].state == "PENDING"
    assert len(lost) == 5
    for error in lost:
        assert isinstance(error, errors.StartError), repr(error)
        assert str(error) == "Couldn't start when state is 'PENDING'."
    assert plans.get_plan(store.engine, plan.uuid).state == "PENDING"


def test_unknown_plan(store):
    missing = "5e0c9a71-3f0f-4a6e-9a0b-2d9c1f7e6b55"
    message = f"^ActionPlan {missing} could not be found$"
    with pytest.raises(errors.NotFound, match=message):
        plans.start_plan(store.engine, missing)
    with pytest.raises(errors.NotFound, match=message):
        plans.update_state(store.engine, missing, "CANCELLED")
    with pytest.raises(errors.NotFound, match="^ActionPlan nosuch could not be found$"):
        plans.get_plan(store.engine, "nosuch")


@pytest.mark.parametrize("start", [False, True], ids=["recommended", "pending"])
def test_cancel_cascades_to_pending_actions(store, start):
    plan = store.plan_of(store.audit())
    if start:
        plans.start_plan(store.engine, plan.uuid)
    listed = store.actions_of(plan)
    actions.update_action(store.engine, listed[0].uuid, state="SKIPPED")
    cancelled = plans.update_state(store.engine, plan.uuid, "CANCELLED")
    assert cancelled.state == "CANCELLED"
    states = [a.state for a in store.actions_of(plan)]
    assert states == ["SKIPPED"] + ["CANCELLED"] * (len(listed) - 1)


def test_patch_to_pending_is_a_start(store):
    plan = store.plan_of(store.audit())
    assert plans.update_state(store.engine, plan.uuid, "PENDING").state == "PENDING"


@pytest.mark.parametrize(
    ("current", "wanted"),
    [
        ("RECOMMENDED", "ONGOING"),
        ("RECOMMENDED", "SUCCEEDED"),
        ("PENDING", "RECOMMENDED"),
        ("ONGOING", "CANCELLED"),
        ("CANCELLED", "PENDING"),
        ("SUCCEEDED", "CANCELLED"),
    ],
)
def test_refused_transitions_change_nothing(store, current, wanted):
    plan = store.plan_of(store.audit())
    store.set_state(t.action_plans, plan.uuid, current)
    with pytest.raises(errors.StateTransitionNotAllowed) as caught:
        plans.update_state(store.engine, plan.uuid, wanted)
    assert str(caught.value) == f"State transition not allowed: ({current} -> {wanted})"
    assert plans.get_plan(store.engine, plan.uuid).state == current
    assert {a.state for a in store.actions_of(plan)} == {"PENDING"}


def test_ongoing_may_be_cancelling(store):
    plan = store.plan_of(store.audit())
    store.set_state(t.action_plans, plan.uuid, "ONGOING")
    assert plans.update_state(store.engine, plan.uuid, "CANCELLING").state == "CANCELLING"


def test_unknown_state(store):
    plan = store.plan_of(store.audit())
    with pytest.raises(errors.InvalidState, match="^Invalid state: BOGUS$"):
        plans.update_state(store.engine, plan.uuid, "BOGUS")


@pytest.mark.parametrize("state", ["RECOMMENDED", "SUCCEEDED", "FAILED", "SUPERSEDED", "CANCELLED"])
def test_delete_hides_plan_and_actions(store, state):
    audit = store.audit()
    plan = store.plan_of(audit)
    listed = store.actions_of(plan)
    store.set_state(t.action_plans, plan.uuid, state)
    plans.delete_plan(store.engine, plan.uuid)
    with pytest.raises(errors.NotFound):
        plans.get_plan(store.engine, plan.uuid)
    assert plans.list_plans(store.engine, Page(), audit_uuid=audit.uuid) == []
    assert actions.list_actions(store.engine, Page(), audit_uuid=audit.uuid) == []
    with pytest.raises(errors.NotFound):
        actions.get_action(store.engine, listed[0].uuid)


@pytest.mark.parametrize("state", ["PENDING", "ONGOING", "CANCELLING"])
def test_delete_refused(store, state):
    plan = store.plan_of(store.audit())
    store.set_state(t.action_plans, plan.uuid, state)
    with pytest.raises(errors.DeleteError, match=f"^Couldn't delete when state is '{state}'.$"):
        plans.delete_plan(store.engine, plan.uuid)
    assert len(store.actions_of(plan)) == 3


def test_list_filters(store):
    first = store.audit()
    store.audit(goal="dummy", strategy="dummy", parameters={})
    plan = store.plan_of(first)
    assert plans.list_plans(store.engine, Page(), audit_uuid=first.uuid) == [plan]
    by_strategy = plans.list_plans(store.engine, Page(), strategy="dummy")
    assert by_strategy and {p.strategy_name for p in by_strategy} == {"dummy"}
    assert plans.list_plans(store.engine, Page(), strategy=plan.strategy_uuid)
    assert plans.list_plans(store.engine, Page(), strategy="nosuch") == []
    unknown = "7d6c5b4a-3f2e-4d1c-9b8a-7f6e5d4c3b2a"
    assert plans.list_plans(store.engine, Page(), audit_uuid=unknown) == []
    with pytest.raises(errors.NotFound, match=f"^ActionPlan {unknown} could not be found$"):
        plans.list_plans(store.engine, Page(marker=unknown))


@pytest.mark.parametrize("hidden", ["applier_id", "lease_expires_at", "global_efficacy"])
def test_the_applier_lease_is_no_sort_key(store, hidden):
    with pytest.raises(errors.Invalid, match=f"^Invalid sort key: {hidden}$"):
        plans.list_plans(store.engine, Page(sort_key=hidden))
