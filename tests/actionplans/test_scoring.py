"""The scoring engines: upstream's metainfo text, the workload classifier's thresholds,
the aggregates, and the features each refuses."""

import json

import pytest

from placement.actionplans.errors import InvalidFeatures
from placement.actionplans.scoring import SCORING_ENGINES_BY_NAME

MIB = 1024 * 1024


def _score(name, features):
    return json.loads(SCORING_ENGINES_BY_NAME[name].calculate_score(json.dumps(features)))


def _metrics(cpu=0, reads=0, writes=0, disk_read=0, disk_write=0):
    """Nine features in dummy_scorer's order (memory and network never matter)."""
    return [cpu, 4096 * MIB, 2048 * MIB, reads, writes, disk_read, disk_write, MIB, MIB]


def test_dummy_scorer_metainfo_is_upstreams_text():
    metainfo = SCORING_ENGINES_BY_NAME["dummy_scorer"].metainfo
    # upstream's literal: served verbatim, so its layout is part of the answer
    assert metainfo.startswith('{\n            "feature_columns": [\n                "proc-')
    assert metainfo.endswith('"disk-intensive"]\n            }')
    assert json.loads(metainfo) == {
        "feature_columns": [
            "proc-processor-time-%",
            "mem-total-bytes",
            "mem-avail-bytes",
            "mem-page-reads/sec",
            "mem-page-writes/sec",
            "disk-read-bytes/sec",
            "disk-write-bytes/sec",
            "net-bytes-received/sec",
            "net-bytes-sent/sec",
        ],
        "result_columns": [
            "workload",
            "idle-probability",
            "cpu-probability",
            "memory-probability",
            "disk-probability",
        ],
        "workloads": ["idle", "cpu-intensive", "memory-intensive", "disk-intensive"],
    }


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        (
            _metrics(cpu=80, reads=2000, writes=2000, disk_read=60 * MIB, disk_write=60 * MIB),
            [1, 0.0, 100.0, 0.0, 0.0],
        ),
        (
            _metrics(cpu=79.9, reads=1000, writes=1000, disk_read=60 * MIB, disk_write=60 * MIB),
            [2, 0.0, 0.0, 100.0, 0.0],
        ),
        (
            _metrics(reads=1000, writes=999, disk_read=50 * MIB, disk_write=50 * MIB),
            [3, 0.0, 0.0, 0.0, 100.0],
        ),
        (_metrics(disk_read=50 * MIB, disk_write=50 * MIB - 1), [0, 100.0, 0.0, 0.0, 0.0]),
        (_metrics(cpu=40, reads=500), [0, 100.0, 50.0, 50.0, 0.0]),
        (_metrics(cpu=39, writes=500), [0, 100.0, 0.0, 50.0, 0.0]),
        (_metrics(cpu=40, reads=499, writes=499), [0, 100.0, 50.0, 0.0, 0.0]),
    ],
    ids=["cpu", "memory", "disk", "idle", "idle-hints", "idle-memory-hint", "idle-cpu-hint"],
)
def test_dummy_scorer_classifies_by_the_first_threshold_reached(metrics, expected):
    assert _score("dummy_scorer", metrics) == expected


def test_dummy_scorer_answers_json_text_of_int_then_floats():
    answer = SCORING_ENGINES_BY_NAME["dummy_scorer"].calculate_score(json.dumps(_metrics(cpu=90)))
    assert answer == "[1, 0.0, 100.0, 0.0, 0.0]"


@pytest.mark.parametrize(
    ("name", "features", "expected"),
    [
        ("dummy_min_scorer", [3, -1.5, 7], [-1.5]),
        ("dummy_max_scorer", [3, -1.5, 7], [7]),
        ("dummy_avg_scorer", [1, 2], [1.5]),
        ("dummy_avg_scorer", [4], [4.0]),
    ],
)
def test_aggregate_scorers(name, features, expected):
    assert _score(name, features) == expected


def test_the_average_is_a_float_even_of_integers():
    assert SCORING_ENGINES_BY_NAME["dummy_avg_scorer"].calculate_score("[2, 4]") == "[3.0]"


@pytest.mark.parametrize("name", list(SCORING_ENGINES_BY_NAME))
@pytest.mark.parametrize(
    ("features", "message"),
    [
        ("[1, 2", "^Unable to parse features: "),
        ('{"cpu": 1}', "^JSON list expected in feature argument$"),
        ('[1, "2"]', "^Every feature must be a number$"),
        ("[true]", "^Every feature must be a number$"),
    ],
)
def test_every_scorer_refuses_features_that_are_no_list_of_numbers(name, features, message):
    with pytest.raises(InvalidFeatures, match=message):
        SCORING_ENGINES_BY_NAME[name].calculate_score(features)


@pytest.mark.parametrize("count", [0, 8, 10])
def test_dummy_scorer_needs_nine_features(count):
    with pytest.raises(InvalidFeatures, match="^Invalid number of features, expected 9$"):
        SCORING_ENGINES_BY_NAME["dummy_scorer"].calculate_score(json.dumps([0] * count))


@pytest.mark.parametrize("name", ["dummy_min_scorer", "dummy_max_scorer", "dummy_avg_scorer"])
def test_aggregates_need_one_feature(name):
    with pytest.raises(InvalidFeatures, match="^At least one feature is required$"):
        SCORING_ENGINES_BY_NAME[name].calculate_score("[]")
