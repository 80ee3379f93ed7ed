"""Actions: lists in plan order, and the user's skip with its rules."""

from __future__ import annotations

import pytest

from placement.actionplans import errors
from placement.db import actionplan_tables as t
from placement.objects.actionplans import actions, plans
from placement.objects.actionplans.paging import Page


def test_skip_with_and_without_reason(store):
    plan = store.plan_of(store.audit())
    first, second, _ = store.actions_of(plan)
    skipped = actions.update_action(store.engine, first.uuid, state="SKIPPED", reason="later")
    assert skipped.state == "SKIPPED"
    assert skipped.status_message == "Action skipped by user. Reason: later"
    plans.start_plan(store.engine, plan.uuid)  # a PENDING plan still allows it
    plain = actions.update_action(store.engine, second.uuid, state="SKIPPED")
    assert plain.status_message == "Action skipped by user."
    reworded = actions.update_action(store.engine, second.uuid, reason="why")
    assert reworded.status_message == "Action skipped by user. Reason: why"
    assert actions.update_action(store.engine, second.uuid) == reworded


def test_refused_changes(store):
    plan = store.plan_of(store.audit())
    first, second, _ = store.actions_of(plan)
    actions.update_action(store.engine, first.uuid, state="SKIPPED")
    with pytest.raises(errors.ActionTransitionNotAllowed) as caught:
        actions.update_action(store.engine, first.uuid, state="PENDING")
    assert str(caught.value) == "State transition not allowed: (SKIPPED -> PENDING)"
    with pytest.raises(errors.ActionTransitionNotAllowed):
        actions.update_action(store.engine, second.uuid, state="SUCCEEDED")
    with pytest.raises(errors.InvalidState, match="^Invalid state: BOGUS$"):
        actions.update_action(store.engine, second.uuid, state="BOGUS")
    with pytest.raises(errors.StatusMessageUpdateNotAllowed):
        actions.update_action(store.engine, second.uuid, reason="nope")
    assert actions.get_action(store.engine, second.uuid) == second


@pytest.mark.parametrize("plan_state", ["ONGOING", "CANCELLED", "SUCCEEDED"])
def test_plan_state_forbids_skipping(store, plan_state):
    plan = store.plan_of(store.audit())
    first = store.actions_of(plan)[0]
    store.set_state(t.action_plans, plan.uuid, plan_state)
    with pytest.raises(errors.PlanStateForbidsActionUpdate) as caught:
        actions.update_action(store.engine, first.uuid, state="SKIPPED")
    assert str(caught.value) == f"State update not allowed for actionplan state: {plan_state}"
    assert actions.get_action(store.engine, first.uuid).state == "PENDING"


def test_unknown_action(store):
    missing = "3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a"
    with pytest.raises(errors.NotFound, match=f"^Action {missing} could not be found$"):
        actions.update_action(store.engine, missing, state="SKIPPED")
    with pytest.raises(errors.NotFound):
        actions.get_action(store.engine, missing)


def test_lists_by_plan_or_audit_page_in_plan_order(store):
    audit = store.audit()
    plan = store.plan_of(audit)
    by_plan = store.actions_of(plan)
    assert [a.position for a in by_plan] == [0, 1, 2]
    assert actions.list_actions(store.engine, Page(), audit_uuid=audit.uuid) == by_plan
    first_page = actions.list_actions(store.engine, Page(limit=2), action_plan_uuid=plan.uuid)
    rest = actions.list_actions(
        store.engine, Page(limit=2, marker=first_page[-1].uuid), action_plan_uuid=plan.uuid
    )
    assert first_page + rest == by_plan
    newest_first = actions.list_actions(
        store.engine, Page(sort_dir="desc"), action_plan_uuid=plan.uuid
    )
    assert newest_first == by_plan[::-1]
    for hidden in ("parents", "position", "started_at", "finished_at", "attempts"):
        with pytest.raises(errors.Invalid, match=f"^Invalid sort key: {hidden}$"):
            actions.list_actions(store.engine, Page(sort_key=hidden))
