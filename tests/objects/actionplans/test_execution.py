"""The applier's writes on all three databases: claims, leases, fenced action runs."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import update

from placement.actionplans import states
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.db.transaction import reader, writer
from placement.objects.actionplans import execution, plans
from tests import rig
from tests.objects.actionplans.store import Store

LEASE = datetime.timedelta(seconds=60)


def _only_plan(store: Store, count: int = 3) -> tuple[dict, list[dict]]:
    """A started plan of ``count`` nops, the only claimable one in the database."""
    with store.engine.begin() as conn:
        conn.execute(
            update(t.action_plans)
            .where(t.action_plans.c.state.in_([states.PENDING, *execution.OWNED_STATES]))
            .values(state=states.SUCCEEDED)
        )
    plan = store.plan_of(store.audit())
    plan = plans.start_plan(store.engine, plan.uuid)
    return plan, execution.plan_actions(store.engine, plan.id)


def _expire(store: Store, plan: dict) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            update(t.action_plans)
            .where(t.action_plans.c.id == plan.id)
            .values(lease_expires_at=utcnow() - datetime.timedelta(seconds=1))
        )


def test_concurrent_claims_have_one_winner(store: Store):
    plan, _ = _only_plan(store)
    results = rig.run_together(
        4, lambda index: execution.claim_next(store.engine, f"applier-{index}", LEASE)
    )
    winners = [(index, r) for index, r in enumerate(results) if r is not None]
    assert not any(isinstance(r, BaseException) for r in results), results
    assert len(winners) == 1
    index, claim = winners[0]
    assert (claim.uuid, claim.state, claim.taken_over) == (
        plan.uuid,
        states.ONGOING,
        False,
    )
    assert execution.owned_state(store.engine, plan.id, f"applier-{index}") == states.ONGOING
    assert execution.owned_state(store.engine, plan.id, "someone-else") is None
    assert execution.claim_next(store.engine, "late", LEASE) is None


def test_a_plan_is_taken_over_only_once_its_lease_ran_out(store: Store):
    plan, actions = _only_plan(store)
    execution.claim_next(store.engine, "old", LEASE)
    attempt = execution.start_action(store.engine, plan.id, actions[0].id, "old")
    assert attempt == 1
    assert execution.claim_next(store.engine, "new", LEASE) is None  # the lease holds

    _expire(store, plan)
    claim = execution.claim_next(store.engine, "new", LEASE)
    assert claim is not None
    assert (claim.state, claim.taken_over, claim.previous_applier_id) == (
        states.ONGOING,
        True,
        "old",
    )
    # The interrupted run is PENDING again, and the old owner can no longer act.
    after = execution.plan_actions(store.engine, plan.id)
    assert [a.state for a in after] == [states.PENDING] * 3
    assert not execution.renew_lease(store.engine, plan.id, "old", LEASE)
    assert execution.start_action(store.engine, plan.id, actions[1].id, "old") is None
    assert execution.cancel_actions(store.engine, plan.id, "old", {actions[1].id: "x"}) == []
    assert not execution.finish_plan(store.engine, plan.id, "old", states.FAILED, "x")
    # The new owner runs the action again: attempt 2.
    assert execution.start_action(store.engine, plan.id, actions[0].id, "new") == 2
    assert execution.renew_lease(store.engine, plan.id, "new", LEASE)


def test_only_the_current_run_may_record_its_end(store: Store):
    plan, actions = _only_plan(store)
    action_id = actions[0].id
    execution.claim_next(store.engine, "old", LEASE)
    stale = execution.start_action(store.engine, plan.id, action_id, "old")
    _expire(store, plan)
    execution.claim_next(store.engine, "new", LEASE)
    current = execution.start_action(store.engine, plan.id, action_id, "new")
    assert (stale, current) == (1, 2)
    assert stale is not None and current is not None
    with pytest.raises(execution.LostRun), writer(store.engine) as conn:
        execution.finish_action(conn, action_id, stale, states.SUCCEEDED, None)
    assert execution.plan_actions(store.engine, plan.id)[0].state == states.ONGOING
    with writer(store.engine) as conn:
        execution.finish_action(conn, action_id, current, states.SKIPPED, "why")
    with pytest.raises(execution.LostRun), writer(store.engine) as conn:
        execution.finish_action(conn, action_id, current, states.SUCCEEDED, None)  # twice
    with reader(store.engine) as conn:
        action = conn.execute(t.actions.select().where(t.actions.c.id == action_id)).one()
    assert (action.state, action.status_message, action.attempts) == (states.SKIPPED, "why", 2)
    assert action.started_at <= action.finished_at


def test_start_needs_a_pending_action_of_an_ongoing_plan_we_own(store: Store):
    plan, actions = _only_plan(store)
    assert execution.start_action(store.engine, plan.id, actions[0].id, "me") is None
    execution.claim_next(store.engine, "me", LEASE)
    assert execution.start_action(store.engine, plan.id, actions[0].id, "me") == 1
    assert execution.start_action(store.engine, plan.id, actions[0].id, "me") is None
    plans.update_state(store.engine, plan.uuid, states.CANCELLING)
    assert execution.owned_state(store.engine, plan.id, "me") == states.CANCELLING
    assert execution.start_action(store.engine, plan.id, actions[1].id, "me") is None
    assert execution.renew_lease(store.engine, plan.id, "me", LEASE)


def test_a_released_plan_is_claimable_at_once(store: Store):
    plan, _ = _only_plan(store)
    execution.claim_next(store.engine, "leaving", LEASE)
    execution.release(store.engine, plan.id, "leaving")
    claim = execution.claim_next(store.engine, "next", LEASE)
    assert claim is not None and claim.taken_over and claim.uuid == plan.uuid


def test_cancelling_actions_and_finishing_the_plan(store: Store):
    plan, actions = _only_plan(store)
    execution.claim_next(store.engine, "me", LEASE)
    execution.start_action(store.engine, plan.id, actions[0].id, "me")
    ids = {action.id: f"m{action.id}" for action in actions[:2]}
    assert execution.cancel_actions(store.engine, plan.id, "me", ids) == [actions[1].id]
    # The end of a cancel needs a CANCELLING plan; any other end needs an ONGOING one.
    assert not execution.finish_plan(
        store.engine, plan.id, "me", states.CANCELLED, None, cancel_pending=True
    )
    plans.update_state(store.engine, plan.uuid, states.CANCELLING)
    assert not execution.finish_plan(store.engine, plan.id, "me", states.SUCCEEDED, None)
    assert execution.finish_plan(
        store.engine, plan.id, "me", states.CANCELLED, None, cancel_pending=True
    )
    after = store.actions_of(plan)
    assert [(a.state, a.status_message) for a in after] == [
        (states.ONGOING, None),
        (states.CANCELLED, f"m{actions[1].id}"),
        (states.CANCELLED, None),
    ]
    final = plans.get_plan(store.engine, plan.uuid)
    assert final.state == states.CANCELLED
    assert not execution.renew_lease(store.engine, plan.id, "me", LEASE)


def test_only_the_current_run_may_record_what_it_asks_and_the_next_run_reads_it(store: Store):
    plan, actions = _only_plan(store)
    action_id = actions[0].id
    assert actions[0].request is None
    execution.claim_next(store.engine, "old", LEASE)
    stale = execution.start_action(store.engine, plan.id, action_id, "old")
    assert stale == 1
    asked = {"attempt": 1, "server": "s1", "source_host": "compute1", "target_host": None}
    execution.record_request(store.engine, action_id, stale, asked)
    assert execution.plan_actions(store.engine, plan.id)[0].request == asked

    # Taken over: the stale run can no longer record (so it must not ask Nova) ...
    _expire(store, plan)
    execution.claim_next(store.engine, "new", LEASE)
    with pytest.raises(execution.LostRun):
        execution.record_request(store.engine, action_id, stale, {"attempt": 1, "late": True})
    # ... and the next run reads what the last current run recorded.
    requeued = execution.plan_actions(store.engine, plan.id)[0]
    assert (requeued.state, requeued.request) == (states.PENDING, asked)
    current = execution.start_action(store.engine, plan.id, action_id, "new")
    assert current == 2
    again = {**asked, "attempt": 2, "migration_id": 7}
    execution.record_request(store.engine, action_id, current, again)
    with writer(store.engine) as conn:
        execution.finish_action(conn, action_id, current, states.SUCCEEDED, None)
    # A finished action keeps its record; nothing records on it any more.
    with pytest.raises(execution.LostRun):
        execution.record_request(store.engine, action_id, current, {})
    assert execution.plan_actions(store.engine, plan.id)[0].request == again
