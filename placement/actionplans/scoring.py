"""The scoring engines: upstream's four sample scorers, as ``/v1/scoring_engines`` lists
them and as ``dummy_with_scorer`` calls them (doc/watcher-api.md §10.2).

A scoring engine takes its features as JSON text and answers JSON text: that is
its whole contract, so a strategy (or a later machine-learning plugin) can call
any of them alike. ``dummy_scorer`` classifies a machine's workload from nine
metrics by fixed thresholds; the other three fold a list of numbers into its
minimum, maximum or mean. Their names, descriptions and metainfo are upstream's
(the object layer writes them as rows at start-up, in this order: upstream's).
Malformed features raise :class:`InvalidFeatures`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Final

from placement.actionplans.errors import InvalidFeatures


@dataclass(frozen=True)
class ScoringEngine:
    """One scoring engine: what the API serves and the score it calculates.

    ``metainfo`` is text, served verbatim: for ``dummy_scorer`` a JSON document
    naming its input columns, its result columns and its workloads (index 0 of a
    result is a position in ``workloads``); empty for the aggregate scorers.
    """

    name: str
    description: str
    metainfo: str
    calculate_score: Callable[[str], str]


#: Positions of ``dummy_scorer``'s features.
CPU_PERCENT, PAGE_READS, PAGE_WRITES, DISK_READ, DISK_WRITE = 0, 3, 4, 5, 6
FEATURES: Final = 9
#: Workloads ``dummy_scorer`` tells apart (its metainfo names them in this order).
IDLE, CPU_INTENSIVE, MEMORY_INTENSIVE, DISK_INTENSIVE = 0, 1, 2, 3

#: A mebibyte: the disk thresholds are in MiB per second.
MIB: Final = 1024 * 1024

#: Upstream's metainfo of ``dummy_scorer``, byte for byte (the API shows it as is).
DUMMY_SCORER_METAINFO: Final = """{
            "feature_columns": [
                "proc-processor-time-%",
                "mem-total-bytes",
                "mem-avail-bytes",
                "mem-page-reads/sec",
                "mem-page-writes/sec",
                "disk-read-bytes/sec",
                "disk-write-bytes/sec",
                "net-bytes-received/sec",
                "net-bytes-sent/sec"],
            "result_columns": [
                "workload",
                "idle-probability",
                "cpu-probability",
                "memory-probability",
                "disk-probability"],
            "workloads": [
                "idle",
                "cpu-intensive",
                "memory-intensive",
                "disk-intensive"]
            }"""


def _numbers(features: str) -> list[float]:
    """The JSON list of numbers ``features`` holds (booleans are not numbers)."""
    try:
        values = json.loads(features)
    except ValueError as exc:
        raise InvalidFeatures(f"Unable to parse features: {exc}") from None
    if not isinstance(values, list):
        raise InvalidFeatures("JSON list expected in feature argument")
    if not all(isinstance(v, Real) and not isinstance(v, bool) for v in values):
        raise InvalidFeatures("Every feature must be a number")
    return values


def classify_workload(features: str) -> str:
    """``dummy_scorer``: ``[workload, idle %, cpu %, memory %, disk %]`` for nine metrics.

    CPU at 80 % or more is CPU-intensive; else page reads and writes both at 1000/s
    or more are memory-intensive; else disk reads and writes both at 50 MiB/s or
    more are disk-intensive; anything else is idle, with a 50 % hint of CPU (from
    40 %) and of memory (reads or writes from 500/s).
    """
    values = _numbers(features)
    if len(values) != FEATURES:
        raise InvalidFeatures(f"Invalid number of features, expected {FEATURES}")
    probabilities = [0.0, 0.0, 0.0, 0.0]
    workload = _dominant(values)
    if workload == IDLE:
        probabilities[IDLE] = 100.0
        probabilities[CPU_INTENSIVE] = 50.0 if values[CPU_PERCENT] >= 40 else 0.0
        paging = max(values[PAGE_READS], values[PAGE_WRITES])
        probabilities[MEMORY_INTENSIVE] = 50.0 if paging >= 500 else 0.0
    else:
        probabilities[workload] = 100.0
    return json.dumps([workload, *probabilities])


def _dominant(values: Sequence[float]) -> int:
    """The workload the first threshold ``values`` reach names (IDLE: none)."""
    if values[CPU_PERCENT] >= 80:
        return CPU_INTENSIVE
    if min(values[PAGE_READS], values[PAGE_WRITES]) >= 1000:
        return MEMORY_INTENSIVE
    if min(values[DISK_READ], values[DISK_WRITE]) >= 50 * MIB:
        return DISK_INTENSIVE
    return IDLE


def _aggregate(fold: Callable[[list[float]], float]) -> Callable[[str], str]:
    """A scorer answering ``[fold(features)]`` for a non-empty list of numbers."""

    def calculate_score(features: str) -> str:
        values = _numbers(features)
        if not values:
            raise InvalidFeatures("At least one feature is required")
        return json.dumps([fold(values)])

    return calculate_score


def _mean(values: list[float]) -> float:
    return float(sum(values)) / len(values)


#: Every scoring engine, in upstream's order (its plugin, then its container's three).
SCORING_ENGINES: tuple[ScoringEngine, ...] = (
    ScoringEngine(
        "dummy_scorer", "Dummy workload classifier", DUMMY_SCORER_METAINFO, classify_workload
    ),
    ScoringEngine(
        "dummy_min_scorer", "Dummy Scorer calculating the minimum value", "", _aggregate(min)
    ),
    ScoringEngine(
        "dummy_max_scorer", "Dummy Scorer calculating the maximum value", "", _aggregate(max)
    ),
    ScoringEngine(
        "dummy_avg_scorer", "Dummy Scorer calculating the average value", "", _aggregate(_mean)
    ),
)

SCORING_ENGINES_BY_NAME: dict[str, ScoringEngine] = {se.name: se for se in SCORING_ENGINES}
