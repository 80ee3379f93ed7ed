"""Several appliers, dead appliers, cancels: every plan ends, every effect commits once."""

from __future__ import annotations

import datetime
import signal
import time

from placement.db.tables import utcnow
from tests.applier.processes import Rig, eventually, recorded, wait

LEASE = 3.0


def _fifty() -> list[dict]:
    """50 actions: five chains of ten, each link holding its transaction a moment."""
    specs: list[dict] = []
    for chain in range(5):
        for link in range(10):
            parents = (len(specs) - 1,) if link else ()
            specs.append(recorded(f"c{chain}-{link}", *parents, delay=0.08))
    return specs


def test_sigkill_half_way_then_another_applier_finishes_with_each_effect_once(
    applier_rig: Rig,
):
    specs = _fifty()
    plan = applier_rig.plan(specs)
    # Leases of 3 s: on a starved machine (CI runs many tests at once) a
    # heartbeat can be late by more than a shorter lease, and an applier that
    # loses its own lease takes its plan over again, a third attempt of the
    # actions it had running, which would blur what this test counts.
    first = applier_rig.start(max_workers=4, lease=LEASE)

    def half_way_and_busy() -> bool:
        found = [row.state for row in applier_rig.actions(plan)]
        return found.count("SUCCEEDED") >= 15 and found.count("ONGOING") >= 2

    eventually(half_way_and_busy, every=0.01)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    states_at_kill = [row.state for row in applier_rig.actions(plan)]
    assert states_at_kill.count("PENDING") > 0  # really half-way
    second = applier_rig.start(max_workers=4, lease=LEASE)
    eventually(lambda: applier_rig.plan_row(plan).state == "SUCCEEDED", timeout=120)
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=15) == 0
    assert f"Took over action plan {plan.uuid}" in applier_rig.log(second)
    rows = applier_rig.actions(plan)
    assert [row.state for row in rows] == ["SUCCEEDED"] * 50
    # Every effect committed exactly once, also those whose run the kill interrupted
    # (they were ONGOING, rolled back, and ran again: attempt 2).
    assert applier_rig.runs() == {spec["params"]["tag"]: 1 for spec in specs}
    at_kill = zip(rows, states_at_kill, strict=True)
    interrupted = [row for row, state in at_kill if state == "ONGOING"]
    assert interrupted
    assert all(row.attempts == 2 for row in interrupted)
    assert sum(row.attempts for row in rows) == 50 + len(interrupted)


def test_two_appliers_racing_for_one_plan_execute_it_once(applier_rig: Rig):
    specs = [recorded(f"r{index}", delay=0.02) for index in range(12)]
    plan = applier_rig.plan(specs)
    racers = [applier_rig.start("--once", max_workers=3) for _ in range(2)]
    for racer in racers:
        assert racer.wait(timeout=120) == 0
    claims = [f"Claimed action plan {plan.uuid}" in applier_rig.log(r) for r in racers]
    assert sorted(claims) == [False, True]
    assert applier_rig.plan_row(plan).state == "SUCCEEDED"
    assert applier_rig.runs() == {spec["params"]["tag"]: 1 for spec in specs}
    assert {row.attempts for row in applier_rig.actions(plan)} == {1}


def test_an_expired_lease_is_taken_over_and_a_live_one_is_not(applier_rig: Rig):
    plan = applier_rig.plan([recorded("first"), recorded("second", 0)])
    later = utcnow() + datetime.timedelta(minutes=5)
    applier_rig.set_plan(plan, state="ONGOING", applier_id="elsewhere:1:x", lease_expires_at=later)
    log = applier_rig.once()
    assert "Claimed" not in log and "Took over" not in log
    assert applier_rig.plan_row(plan).state == "ONGOING"
    assert applier_rig.runs() == {}

    earlier = utcnow() - datetime.timedelta(seconds=1)
    applier_rig.set_plan(plan, lease_expires_at=earlier)
    log = applier_rig.once()
    assert f"Took over action plan {plan.uuid} (ONGOING) from applier elsewhere:1:x" in log
    row = applier_rig.plan_row(plan)
    assert (row.state, row.lease_expires_at) == ("SUCCEEDED", None)
    assert row.applier_id != "elsewhere:1:x"
    assert applier_rig.runs() == {"first": 1, "second": 1}


def test_cancel_cuts_a_wait_short_and_cancels_what_is_pending(applier_rig: Rig):
    from placement.objects.actionplans import plans

    plan = applier_rig.plan([wait(60), recorded("never", 0), recorded("also-never")])
    applier = applier_rig.start(max_workers=1)
    eventually(lambda: applier_rig.actions(plan)[0].state == "ONGOING")
    cancelled_at = time.monotonic()
    plans.update_state(applier_rig.engine, plan.uuid, "CANCELLING")
    eventually(lambda: applier_rig.plan_row(plan).state == "CANCELLED", timeout=10)
    assert time.monotonic() - cancelled_at < 5
    rows = applier_rig.actions(plan)
    assert [row.state for row in rows] == ["CANCELLED", "CANCELLED", "CANCELLED"]
    assert (rows[0].finished_at - rows[0].started_at).total_seconds() < 5
    assert applier_rig.runs() == {}
    applier.send_signal(signal.SIGTERM)
    assert applier.wait(timeout=15) == 0


def test_sigterm_stops_at_once_and_hands_the_plan_to_the_next_applier(applier_rig: Rig):
    plan = applier_rig.plan([wait(2), recorded("after", 0)])
    applier = applier_rig.start(lease=30.0)
    eventually(lambda: applier_rig.actions(plan)[0].state == "ONGOING")
    stopped_at = time.monotonic()
    applier.send_signal(signal.SIGTERM)
    assert applier.wait(timeout=15) == 0
    assert time.monotonic() - stopped_at < 5
    assert f"Released action plan {plan.uuid}" in applier_rig.log(applier)
    assert applier_rig.plan_row(plan).state == "ONGOING"  # left, not failed
    # The lease was ended on the way out: the next applier resumes without waiting 30 s.
    log = applier_rig.once()
    assert f"Took over action plan {plan.uuid}" in log
    rows = applier_rig.actions(plan)
    assert [(row.state, row.attempts) for row in rows] == [("SUCCEEDED", 2), ("SUCCEEDED", 1)]
    assert applier_rig.plan_row(plan).state == "SUCCEEDED"
