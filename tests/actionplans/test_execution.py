"""The applier's pure scheduling rules: ready set, failure cascade, plan outcome."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from placement.actionplans import execution
from placement.actionplans.execution import PlanOutcome, Step

P, R, S, F, K, C = "PENDING", "ONGOING", "SUCCEEDED", "FAILED", "SKIPPED", "CANCELLED"


def test_ready_waits_for_every_parent_to_succeed_or_be_skipped():
    steps = [
        Step("a", S),
        Step("b", K),
        Step("c", P, ("a", "b")),
        Step("d", P, ("a", "e")),
        Step("e", R),
        Step("f", P),
        Step("g", R),
    ]
    assert execution.ready(steps) == ["c", "f"]


def test_a_parent_missing_from_the_plan_does_not_hold_its_child():
    assert execution.ready([Step("child", P, ("deleted-parent",))]) == ["child"]


def test_a_failure_cancels_the_whole_subtree_naming_the_failed_action():
    steps = [
        Step("root", S),
        Step("bad", F, ("root",)),
        Step("child", P, ("bad",)),
        Step("grandchild", P, ("child", "root")),
        Step("other", P, ("root",)),
        Step("second-bad", F),
        Step("two-failures", P, ("second-bad", "bad")),
    ]
    assert execution.cancelled_by_failure(steps) == {
        "child": execution.parent_failed_message("bad"),
        "grandchild": execution.parent_failed_message("bad"),
        "two-failures": execution.parent_failed_message("second-bad"),
    }
    assert execution.parent_failed_message("bad") == (
        "Action cancelled: its parent action bad failed."
    )


def test_below_an_already_cancelled_action_the_original_failure_is_named():
    steps = [Step("bad", F), Step("cancelled", C, ("bad",)), Step("later", P, ("cancelled",))]
    assert execution.cancelled_by_failure(steps) == {
        "later": execution.parent_failed_message("bad")
    }


def test_below_a_cancelled_action_with_no_failure_the_cancelled_one_is_named():
    steps = [Step("gone", C), Step("later", P, ("gone",))]
    assert execution.cancelled_by_failure(steps) == {
        "later": "Action cancelled: its parent action gone was cancelled."
    }


def test_a_cycle_in_bad_data_does_not_loop():
    steps = [Step("a", P, ("b",)), Step("b", P, ("a",))]
    assert execution.cancelled_by_failure(steps) == {}
    assert execution.ready(steps) == []


def test_plan_outcome_follows_its_actions():
    assert execution.plan_outcome([Step("a", S), Step("b", P)]) is None
    assert execution.plan_outcome([Step("a", S), Step("b", R)]) is None
    assert execution.plan_outcome([Step("a", S)]) == PlanOutcome(S)
    assert execution.plan_outcome([]) == PlanOutcome(S)
    assert execution.plan_outcome([Step("a", S), Step("b", K)]) == PlanOutcome(
        S, "One or more actions were skipped."
    )
    assert execution.plan_outcome([Step("a", K), Step("b", F), Step("c", C)]) == PlanOutcome(
        F, "One or more actions failed."
    )
    assert execution.plan_outcome([Step("a", S), Step("b", C)], cancelling=True) == (PlanOutcome(C))
    assert execution.plan_outcome([Step("a", R)], cancelling=True) is None


def test_pending_and_apply():
    steps = [Step("a", P), Step("b", S, ("a",)), Step("c", P)]
    assert execution.pending(steps) == ["a", "c"]
    assert execution.apply(steps, {"a": R}) == [Step("a", R), Step("b", S, ("a",)), Step("c", P)]


@st.composite
def _dags(draw: st.DrawFn) -> list[tuple[tuple[int, ...], str]]:
    """Random plans: each action's parents come before it; each outcome pre-chosen."""
    size = draw(st.integers(0, 12))
    return [
        (
            tuple(draw(st.sets(st.integers(0, index - 1), max_size=3))) if index else (),
            draw(st.sampled_from([S, S, S, K, F])),
        )
        for index in range(size)
    ]


@given(_dags())
def test_running_the_rules_to_the_end_always_finishes_and_respects_parents(dag):
    """Simulate the applier: run what is ready, cascade failures, until the plan ends."""
    steps = [
        Step(str(index), P, tuple(map(str, parents))) for index, (parents, _) in enumerate(dag)
    ]
    outcome_of = {str(index): outcome for index, (_, outcome) in enumerate(dag)}
    ran: list[str] = []
    for _ in range(len(dag) + 1):
        steps = execution.apply(steps, dict.fromkeys(execution.cancelled_by_failure(steps), C))
        batch = execution.ready(steps)
        finished = {step.uuid for step in steps if step.state in execution.FINISHED}
        for uuid in batch:
            parents = next(step.parents for step in steps if step.uuid == uuid)
            assert set(parents) <= finished
        ran += batch
        steps = execution.apply(steps, {uuid: outcome_of[uuid] for uuid in batch})
    result = execution.plan_outcome(steps)
    assert result is not None
    states = {step.uuid: step.state for step in steps}
    assert (result.state == F) == (F in states.values())
    for step in steps:
        assert (step.state == C) == any(states[parent] in (F, C) for parent in step.parents), step
    assert len(ran) == len(set(ran))
