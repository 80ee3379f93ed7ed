"""Order, parallelism, failures and skips, as an applier process executes them."""

from __future__ import annotations

from tests.applier.processes import Rig, recorded


def _diamonds() -> list[dict]:
    """Two diamonds in a row beside an independent chain: a mix of fan-out and fan-in."""
    return [
        recorded("a", delay=0.05),
        recorded("b1", 0, delay=0.1),
        recorded("b2", 0, delay=0.05),
        recorded("b3", 0, delay=0.08),
        recorded("c", 1, 2, 3, delay=0.05),
        recorded("d1", 4, delay=0.05),
        recorded("d2", 4, delay=0.1),
        recorded("e", 5, 6, delay=0.02),
        recorded("x1", delay=0.1),
        recorded("x2", 8, delay=0.1),
        recorded("x3", 9, delay=0.1),
    ]


def test_no_action_starts_before_its_parents_finish_nor_beyond_max_workers(applier_rig: Rig):
    specs = _diamonds()
    plan = applier_rig.plan(specs)
    log = applier_rig.once(max_workers=2)
    assert f"Claimed action plan {plan.uuid}" in log
    assert f"Action plan {plan.uuid} finished: SUCCEEDED" in log
    rows = applier_rig.actions(plan)
    assert [row.state for row in rows] == ["SUCCEEDED"] * len(specs)
    assert {row.attempts for row in rows} == {1}
    by_uuid = {row.uuid: row for row in rows}
    for row in rows:
        assert row.started_at <= row.finished_at
        for parent in row.parents:
            assert by_uuid[parent].finished_at <= row.started_at, (row.input_parameters, parent)
    # Never more than max_workers runs at once (intervals open at start, closed at finish).
    events = sorted(
        [(row.started_at, 1) for row in rows] + [(row.finished_at, -1) for row in rows],
        key=lambda event: (event[0], event[1]),
    )
    running, peak = 0, 0
    for _, change in events:
        running += change
        peak = max(peak, running)
    assert peak == 2  # the graph has room for more: the limit is what held it
    assert applier_rig.runs() == {spec["params"]["tag"]: 1 for spec in specs}
    plan_row = applier_rig.plan_row(plan)
    assert (plan_row.state, plan_row.status_message) == ("SUCCEEDED", None)


def test_a_failure_cancels_its_descendants_naming_it_and_a_skip_blocks_nothing(
    applier_rig: Rig,
):
    plan = applier_rig.plan(
        [
            recorded("root"),
            recorded("broken", 0, outcome="FAILED"),
            recorded("child", 1),
            recorded("grandchild", 2),
            recorded("also-below", 0, 1),
            recorded("bystander"),
            recorded("skipper", outcome="SKIPPED"),
            recorded("after-skip", 6),
        ]
    )
    applier_rig.once()
    rows = applier_rig.actions(plan)
    broken = rows[1].uuid
    assert [(row.state, row.status_message) for row in rows] == [
        ("SUCCEEDED", None),
        ("FAILED", "Action failed in execute: asked to fail"),
        ("CANCELLED", f"Action cancelled: its parent action {broken} failed."),
        ("CANCELLED", f"Action cancelled: its parent action {broken} failed."),
        ("CANCELLED", f"Action cancelled: its parent action {broken} failed."),
        ("SUCCEEDED", None),
        ("SKIPPED", "Action was skipped automatically: asked to skip"),
        ("SUCCEEDED", None),
    ]
    assert [row.attempts for row in rows] == [1, 1, 0, 0, 0, 1, 1, 1]
    assert applier_rig.runs() == {"root": 1, "bystander": 1, "after-skip": 1}
    plan_row = applier_rig.plan_row(plan)
    assert (plan_row.state, plan_row.status_message) == ("FAILED", "One or more actions failed.")


def test_skipped_actions_make_a_succeeded_plan_say_so(applier_rig: Rig):
    plan = applier_rig.plan([recorded("one"), recorded("two", 0, outcome="SKIPPED")])
    applier_rig.once()
    plan_row = applier_rig.plan_row(plan)
    assert (plan_row.state, plan_row.status_message) == (
        "SUCCEEDED",
        "One or more actions were skipped.",
    )


def test_an_action_type_nobody_installed_fails_in_pre_condition(applier_rig: Rig):
    plan = applier_rig.plan(
        [{"type": "teleport", "params": {}, "parents": []}, recorded("after", 0)]
    )
    applier_rig.once()
    rows = applier_rig.actions(plan)
    assert [(row.state, row.status_message) for row in rows] == [
        ("FAILED", "Action failed in pre_condition: no action type 'teleport' is installed"),
        ("CANCELLED", f"Action cancelled: its parent action {rows[0].uuid} failed."),
    ]
    assert applier_rig.plan_row(plan).state == "FAILED"
