"""The ``dummy_with_scorer`` strategy: upstream's demonstration of scoring engines.

It scores made-up telemetry with ``dummy_scorer`` and reads the workload's name
from that scorer's metainfo, averages twenty random numbers with
``dummy_avg_scorer``, and says both in ``nop`` messages before a sleep. The
figures are random (as upstream's), so two audits differ only in those two
messages; its parameters are only accepted, as upstream only logs them.
"""

from __future__ import annotations

import json
import random
from typing import Any

from placement.actionplans.action_types.names import NOP, SLEEP
from placement.actionplans.planners import weight
from placement.actionplans.scoring import MIB, SCORING_ENGINES_BY_NAME
from placement.actionplans.solution import Solution
from placement.actionplans.strategies.declaration import Strategy
from placement.actionplans.strategies.dummy import example_parameters
from placement.actionplans.world import World

_GIB = 1024 * MIB


def solve(parameters: dict[str, Any], world: World) -> Solution:
    """The plan for fresh random figures (see :func:`solve_with`)."""
    return solve_with(random.Random())


def solve_with(rng: random.Random) -> Solution:
    """``nop`` hello, ``nop`` the detected workload, ``nop`` the average, ``sleep 5.0``,
    the figures drawn from ``rng``."""
    classifier = SCORING_ENGINES_BY_NAME["dummy_scorer"]
    workloads = json.loads(classifier.metainfo)["workloads"]
    detected = json.loads(classifier.calculate_score(json.dumps(telemetry(rng))))[0]
    averager = SCORING_ENGINES_BY_NAME["dummy_avg_scorer"]
    sample = rng.sample(range(1000), 20)
    average = json.loads(averager.calculate_score(json.dumps(sample)))[0]
    solution = Solution()
    solution.add(NOP, {"message": "Hello from Dummy Strategy with Scorer!"})
    solution.add(NOP, {"message": f"Detected Workload: {workloads[detected]}"})
    solution.add(NOP, {"message": f"AVG Scorer result: {average}"})
    solution.add(SLEEP, {"duration": 5.0})
    return solution


def telemetry(rng: random.Random) -> list[int]:
    """Nine made-up metrics of a machine in ``dummy_scorer``'s feature order, in
    upstream's ranges: CPU %, memory (4 GiB, 1 to 4 available), page reads and
    writes per second, disk read and write bytes, network in and out."""
    return [
        rng.randint(0, 100),
        4 * _GIB,
        rng.randint(1 * _GIB, 4 * _GIB),
        rng.randint(0, 2000),
        rng.randint(0, 2000),
        rng.randint(0, 200 * MIB),
        rng.randint(0, 200 * MIB),
        rng.randint(0, 20 * MIB),
        rng.randint(0, 10 * MIB),
    ]


STRATEGY = Strategy(
    name="dummy_with_scorer",
    display_name="Dummy Strategy using sample Scoring Engines",
    goal="dummy",
    parameters_spec=example_parameters("param1", "param2"),
    planner=weight.NAME,
    needs_world=False,
    solve=solve,
)
