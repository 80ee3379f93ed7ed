"""dummy_with_scorer: the shape of its plan whatever the draw, and what a given draw says."""

from __future__ import annotations

import json
import random
import re

import pytest

from placement.actionplans.errors import InvalidAuditParameters
from placement.actionplans.model import ProposedAction
from placement.actionplans.scoring import SCORING_ENGINES_BY_NAME
from placement.actionplans.strategies import dummy_with_scorer, solve

WORKLOADS = ("idle", "cpu-intensive", "memory-intensive", "disk-intensive")


@pytest.mark.parametrize("attempt", range(20))
def test_four_actions_whatever_the_draw(attempt):
    solution = solve("dummy_with_scorer", {})
    assert [a.action_type for a in solution.actions] == ["nop", "nop", "nop", "sleep"]
    hello, workload, average, sleep = (a.input_parameters for a in solution.actions)
    assert hello == {"message": "Hello from Dummy Strategy with Scorer!"}
    detected = re.fullmatch("Detected Workload: (.+)", workload["message"])
    assert detected is not None and detected.group(1) in WORKLOADS
    mean = re.fullmatch(r"AVG Scorer result: (\d+\.\d+)", average["message"])
    assert mean is not None and 0.0 <= float(mean.group(1)) <= 999.0
    assert sleep == {"duration": 5.0}
    assert solution.planner == "weight"
    assert solution.parameters == {"param1": 3.2, "param2": "hello"}


def test_a_draw_is_scored_by_the_two_engines():
    """The messages are what the engines answer for the figures the same draw makes."""
    drawn = random.Random(42)
    features = dummy_with_scorer.telemetry(drawn)
    sample = drawn.sample(range(1000), 20)
    classified = SCORING_ENGINES_BY_NAME["dummy_scorer"].calculate_score(json.dumps(features))
    solution = dummy_with_scorer.solve_with(random.Random(42))
    assert solution.actions[1] == ProposedAction(
        "nop", {"message": f"Detected Workload: {WORKLOADS[json.loads(classified)[0]]}"}
    )
    assert solution.actions[2] == ProposedAction(
        "nop", {"message": f"AVG Scorer result: {sum(sample) / 20}"}
    )


def test_telemetry_stays_in_upstreams_ranges():
    mib, gib = 1024 * 1024, 1024 * 1024 * 1024
    bounds = [
        (0, 100),
        (4 * gib, 4 * gib),
        (gib, 4 * gib),
        (0, 2000),
        (0, 2000),
        (0, 200 * mib),
        (0, 200 * mib),
        (0, 20 * mib),
        (0, 10 * mib),
    ]
    drawn = random.Random(7)
    for _ in range(200):
        features = dummy_with_scorer.telemetry(drawn)
        assert all(
            low <= value <= high for value, (low, high) in zip(features, bounds, strict=True)
        )


def test_param1_is_bounded():
    with pytest.raises(InvalidAuditParameters):
        solve("dummy_with_scorer", {"param1": 0.5})
