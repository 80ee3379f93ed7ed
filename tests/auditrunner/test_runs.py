"""The audit runner on every configured database, its clock moved by the test.

Runners here are real :class:`AuditRunner` objects on real databases (one app
per backend and module); only time is the test's, so nothing waits for an
interval to pass.
"""

from __future__ import annotations

import datetime
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select, update

from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import PlannerOptions
from placement.auditrunner import run
from placement.auditrunner.run import Outcome
from placement.auditrunner.service import LOG as service_log
from placement.auditrunner.service import SERVICE_NAME, AuditRunner
from placement.db import actionplan_tables as t
from placement.objects.actionplans import audit_runs, audits, paging, plans, services
from tests import rig, service_rows

T0 = datetime.datetime(2030, 1, 1, 10, 2, 33)


class Clock:
    """A clock the test moves."""

    def __init__(self, now: datetime.datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += datetime.timedelta(seconds=seconds)


@pytest.fixture(scope="module", params=rig.backends())
def engine(request: pytest.FixtureRequest) -> Iterator[Any]:
    with rig.placement_app(request.param) as (app, _conf):
        yield app.placement_engine


@pytest.fixture
def clean(engine):
    """No audit of an earlier test is due, and no plan is ONGOING."""
    with engine.begin() as conn:
        conn.execute(update(t.audits).values(state="CANCELLED"))
        conn.execute(
            update(t.action_plans).where(t.action_plans.c.state == "ONGOING").values(state="FAILED")
        )
    return engine


def runner(engine, clock: Clock, **more) -> AuditRunner:
    return AuditRunner(engine=engine, options=PlannerOptions(), clock=clock, **more)


def continuous(engine, interval: str = "60", **fields) -> audits.Audit:
    body = {
        "audit_type": "CONTINUOUS",
        "goal": "dummy",
        "strategy": "dummy",
        "name": f"c-{uuid.uuid4().hex[:8]}",
        "interval": interval,
        **fields,
    }
    return audits.create_audit(engine, PlannerOptions(), AuditRequest.from_body(body))


def plans_of(engine, audit) -> list[plans.ActionPlan]:
    return plans.list_plans(engine, paging.Page(), audit_uuid=audit.uuid)


def test_a_continuous_audit_runs_every_interval_and_keeps_one_recommended_plan(clean):
    engine, clock = clean, Clock()
    audit = continuous(engine)
    first = runner(engine, clock, hostname="runner-host")
    assert first.run_due() == [(audit.uuid, Outcome.PLANNED)]
    ran = audits.get_audit(engine, audit.uuid)
    assert ran.state == "ONGOING"
    assert ran.hostname == "runner-host"
    assert ran.next_run_time == T0 + datetime.timedelta(seconds=60)
    (plan,) = plans_of(engine, audit)
    assert plan.state == "RECOMMENDED"

    clock.advance(59)
    assert first.run_due() == []  # not due yet
    clock.advance(1)
    assert runner(engine, clock).run_due() == [(audit.uuid, Outcome.PLANNED)]
    old, new = sorted(plans_of(engine, audit), key=lambda p: p.id)
    assert (old.state, new.state) == ("CANCELLED", "RECOMMENDED")
    assert audits.get_audit(engine, audit.uuid).next_run_time == clock.now + datetime.timedelta(
        seconds=60
    )


def test_the_cancelled_plan_takes_its_pending_actions_along(clean):
    engine, clock = clean, Clock()
    audit = continuous(
        engine,
        goal="unclassified",
        strategy="actuator",
        parameters={"actions": [{"action_type": "nop", "input_parameters": {"message": "m"}}]},
    )
    engine_runner = runner(engine, clock)
    engine_runner.run_due()
    clock.advance(60)
    engine_runner.run_due()
    old = min(plans_of(engine, audit), key=lambda p: p.id)
    with engine.connect() as conn:
        states = conn.execute(
            select(t.actions.c.state).where(t.actions.c.action_plan_id == old.id)
        ).scalars()
        assert list(states) == ["CANCELLED"]


def test_cron_runs_land_on_the_minute(clean):
    engine, clock = clean, Clock()
    audit = continuous(engine, interval="*/5 * * * *")
    runner(engine, clock).run_due()
    assert audits.get_audit(engine, audit.uuid).next_run_time == datetime.datetime(
        2030, 1, 1, 10, 5
    )


def test_suspended_and_cancelled_audits_are_not_run(clean):
    engine, clock = clean, Clock()
    audit = continuous(engine)
    the_runner = runner(engine, clock)
    the_runner.run_due()
    audits.update_audit(engine, audit.uuid, {"state": "SUSPENDED"})
    clock.advance(3600)
    assert the_runner.run_due() == []
    assert len(plans_of(engine, audit)) == 1
    audits.update_audit(engine, audit.uuid, {"state": "ONGOING"})
    assert the_runner.run_due() == [(audit.uuid, Outcome.PLANNED)]
    audits.update_audit(engine, audit.uuid, {"state": "CANCELLED"})
    clock.advance(3600)
    assert the_runner.run_due() == []
    assert len(plans_of(engine, audit)) == 2


def test_the_window(clean):
    engine, clock = clean, Clock()
    start = T0 + datetime.timedelta(hours=1)
    audit = continuous(engine, start_time=start, end_time=start + datetime.timedelta(hours=1))
    the_runner = runner(engine, clock)
    assert the_runner.run_due() == [(audit.uuid, Outcome.BEFORE_START)]
    assert audits.get_audit(engine, audit.uuid).next_run_time == start
    assert the_runner.run_due() == []
    clock.now = start
    assert the_runner.run_due() == [(audit.uuid, Outcome.PLANNED)]
    clock.advance(7200)
    assert the_runner.run_due() == [(audit.uuid, Outcome.ENDED)]
    assert audits.get_audit(engine, audit.uuid).state == "SUCCEEDED"


def test_the_force_guard_skips_a_run_but_not_a_forced_one(clean):
    engine, clock = clean, Clock()
    guarded = continuous(engine)
    forced = continuous(engine, force=True)
    busy = audits.create_audit(
        engine,
        PlannerOptions(),
        AuditRequest(audit_type="ONESHOT", goal="dummy", strategy="dummy"),
    )
    (running,) = plans_of(engine, busy)
    with engine.begin() as conn:
        conn.execute(
            update(t.action_plans).where(t.action_plans.c.id == running.id).values(state="ONGOING")
        )
    outcomes = dict(runner(engine, clock).run_due())
    assert outcomes == {guarded.uuid: Outcome.PLAN_ONGOING, forced.uuid: Outcome.PLANNED}
    skipped = audits.get_audit(engine, guarded.uuid)
    assert skipped.state == "PENDING"
    assert skipped.next_run_time == T0 + datetime.timedelta(seconds=60)
    assert plans_of(engine, guarded) == []


def test_a_strategy_error_fails_the_audit_for_good(clean):
    engine, clock = clean, Clock()
    audit = continuous(
        engine,
        goal="cluster_maintaining",
        strategy="host_maintenance",
        parameters={"maintenance_node": "no-such-node"},
    )
    the_runner = runner(engine, clock)
    assert the_runner.run_due() == [(audit.uuid, Outcome.FAILED)]
    failed = audits.get_audit(engine, audit.uuid)
    assert failed.state == "FAILED"
    assert "no-such-node" in failed.status_message
    clock.advance(3600)
    assert the_runner.run_due() == []


def test_an_event_audit_runs_once_per_trigger(clean):
    engine, clock = clean, Clock()
    audit = audits.create_audit(
        engine,
        PlannerOptions(),
        AuditRequest(audit_type="EVENT", goal="dummy", name=f"e-{uuid.uuid4().hex[:8]}"),
    )
    the_runner = runner(engine, clock)
    assert the_runner.run_due() == []
    audits.trigger_event(engine, audit.uuid, clock.now)
    assert the_runner.run_due() == [(audit.uuid, Outcome.PLANNED)]
    ran = audits.get_audit(engine, audit.uuid)
    assert (ran.state, ran.next_run_time) == ("SUCCEEDED", None)
    assert the_runner.run_due() == []
    audits.trigger_event(engine, audit.uuid, clock.now)
    the_runner.run_due()
    assert len(plans_of(engine, audit)) == 2


def test_a_held_audit_is_taken_over_only_when_its_lease_runs_out(clean):
    engine, clock = clean, Clock()
    audit = continuous(engine)
    lease = datetime.timedelta(seconds=30)
    dead = audit_runs.claim_due(engine, "dead-runner", "h", lease, clock.now)
    assert dead is not None and dead.uuid == audit.uuid
    heir = runner(engine, clock, lease_seconds=30)
    clock.advance(29)
    assert heir.run_due() == []
    clock.advance(2)
    assert heir.run_due() == [(audit.uuid, Outcome.PLANNED)]
    # The dead runner's late result is not stored: the audit is no longer its.
    planned = audit_runs.plan(engine, PlannerOptions(), dead)
    assert not audit_runs.store(engine, dead, "dead-runner", planned, None)
    assert len(plans_of(engine, audit)) == 1


def _patched_during_the_run(engine, audit, clock: Clock) -> datetime.datetime:
    """What a PATCH of the interval does (``audit_changes``): the new
    interval, and the next run moved by it. Returns that next run."""
    moved = clock.now + datetime.timedelta(seconds=3600)
    with engine.begin() as conn:
        conn.execute(
            update(t.audits)
            .where(t.audits.c.uuid == audit.uuid)
            .values(interval="3600", next_run_time=moved)
        )
    return moved


def _claimed(engine, clock: Clock) -> tuple[audits.Audit, audit_runs.AuditClaim]:
    """A new 3 s audit, claimed by "runner"."""
    audit = continuous(engine, interval="3")
    claim = audit_runs.claim_due(engine, "runner", "h", datetime.timedelta(seconds=30), clock.now)
    assert claim is not None and claim.uuid == audit.uuid
    return audit, claim


def test_a_run_does_not_undo_an_interval_changed_while_it_ran(clean):
    """CI saw it: the interval was patched while a 3 s audit ran, and the
    run's result put the next run back 3 s ahead."""
    engine, clock = clean, Clock()
    audit, claim = _claimed(engine, clock)
    assert audit_runs.begin(engine, claim.id, "runner")
    planned = audit_runs.plan(engine, PlannerOptions(), claim)
    moved = _patched_during_the_run(engine, audit, clock)
    assert audit_runs.store(engine, claim, "runner", planned, run.next_time(claim, clock.now))
    assert audits.get_audit(engine, audit.uuid).next_run_time == moved
    assert len(plans_of(engine, audit)) == 1


def test_a_skipped_run_does_not_undo_an_interval_changed_meanwhile(clean):
    engine, clock = clean, Clock()
    audit, claim = _claimed(engine, clock)
    moved = _patched_during_the_run(engine, audit, clock)
    audit_runs.release(engine, claim, "runner", run.next_time(claim, clock.now))
    assert audits.get_audit(engine, audit.uuid).next_run_time == moved


def test_an_unchanged_schedule_takes_the_runs_next_time(clean):
    engine, clock = clean, Clock()
    audit, claim = _claimed(engine, clock)
    audit_runs.release(engine, claim, "runner", clock.now + datetime.timedelta(seconds=3))
    assert audits.get_audit(engine, audit.uuid).next_run_time == T0 + datetime.timedelta(seconds=3)


def test_two_runners_never_run_one_audit_at_once(clean, monkeypatch):
    """Two runners race for the same due audits on a real clock; every run of one
    audit starts after the previous one ended (the recorded run times)."""
    engine = clean
    made = [continuous(engine, interval="1") for _ in range(2)]
    wanted = {audit.uuid for audit in made}
    runs: list[tuple[str, str, float, float]] = []
    real_plan = audit_runs.plan

    def recorded(engine_, options, claim, measure=None):
        started = time.monotonic()
        time.sleep(0.05)
        try:
            return real_plan(engine_, options, claim, measure)
        finally:
            runs.append((claim.uuid, threading.current_thread().name, started, time.monotonic()))

    monkeypatch.setattr(audit_runs, "plan", recorded)
    runners = [
        AuditRunner(engine=engine, options=PlannerOptions(), poll_interval=0.01) for _ in range(2)
    ]
    threads = [threading.Thread(target=r.run, name=f"runner-{i}") for i, r in enumerate(runners)]
    for thread in threads:
        thread.start()
    time.sleep(3.5)
    for r in runners:
        r.stop.set()
    for thread in threads:
        thread.join()
    ours = [run for run in runs if run[0] in wanted]
    assert len({run[1] for run in ours}) == 2, "both runners ran audits"
    for audit in made:
        mine = sorted((start, end) for uuid_, _, start, end in ours if uuid_ == audit.uuid)
        assert len(mine) >= 2
        assert all(later[0] >= earlier[1] for earlier, later in zip(mine, mine[1:], strict=False))


def test_the_runner_beats_as_upstreams_decision_engine(clean):
    engine, clock = clean, Clock()
    runner(engine, clock, hostname="beating-host").run(once=True)
    with engine.connect() as conn:
        seen = conn.execute(
            select(t.services.c.last_seen_up).where(
                t.services.c.host == "beating-host", t.services.c.name == SERVICE_NAME
            )
        ).scalar_one()
    assert seen == T0


def test_the_runner_is_listed_when_it_says_it_started(clean):
    """Its row is written at start-up, before the ``started`` line and the first
    pass: read from that line's handler, it is there."""
    engine, stop = clean, threading.Event()
    started = runner(engine, Clock(services.utcnow()), hostname="announcing-host", stop=stop)
    line = r"^Audit runner \S+ started"
    with service_rows.at_start(service_log.name, engine, line, stop) as seen:
        started.run()
    assert ("announcing-host", SERVICE_NAME, services.ACTIVE) in seen.listed
