"""The hand-written JSON of the answer, against the dicts it stands for."""

from __future__ import annotations

import json

import pytest

from placement import microversion as mv
from placement.candidates.model import Candidate, Provider, Trees
from placement.candidates.output import EMPTY, body, one_provider_body

NAMES = {0: "VCPU", 2: "DISK_GB"}
TREES = Trees(
    {1: Provider("uuid-1", None, 1), 2: Provider("uuid-2", 1, 1), 7: Provider("uuid-7", None, 7)}
)
SHARED = ((1, 0, 2), (2, 0, 1), (7, 2, 10))
CANDIDATES = [
    Candidate(SHARED, (("", (1, 7)), ("_A", (2,))), (1, 1, 7)),
    # The same allocations object, other mappings: written from the memo.
    Candidate(SHARED, (("", (2, 7)), ("_A", (1,))), (1, 1, 7)),
    Candidate(((1, 0, 1), (1, 2, 5)), (("", (1,)), ("_A", (1,))), (1, 1)),
]


@pytest.mark.parametrize("version", [mv.Version(1, 10), mv.Version(1, 12), mv.Version(1, 34)])
def test_body_is_the_json_of_the_answer(version):
    summaries = {"uuid-1": {"resources": {"VCPU": {"capacity": 4, "used": 0}}}}
    got = json.loads(body(CANDIDATES, TREES, NAMES, json.dumps(summaries), version))
    assert got["provider_summaries"] == summaries
    requests = got["allocation_requests"]
    if version < mv.ALLOCATIONS_DICT:
        assert requests[2] == {
            "allocations": [
                {"resource_provider": {"uuid": "uuid-1"}, "resources": {"VCPU": 1, "DISK_GB": 5}}
            ]
        }
        assert [a["resource_provider"]["uuid"] for a in requests[0]["allocations"]] == [
            "uuid-1",
            "uuid-2",
            "uuid-7",
        ]
        return
    assert requests[0]["allocations"] == {
        "uuid-1": {"resources": {"VCPU": 2}},
        "uuid-2": {"resources": {"VCPU": 1}},
        "uuid-7": {"resources": {"DISK_GB": 10}},
    }
    assert requests[1]["allocations"] == requests[0]["allocations"]
    if version < mv.MAPPINGS:
        assert all(set(r) == {"allocations"} for r in requests)
        return
    assert [r["mappings"] for r in requests] == [
        {"": ["uuid-1", "uuid-7"], "_A": ["uuid-2"]},
        {"": ["uuid-2", "uuid-7"], "_A": ["uuid-1"]},
        {"": ["uuid-1"], "_A": ["uuid-1"]},
    ]


def test_text_matches_json_dumps_byte_for_byte():
    version = mv.MAX_VERSION
    text = body(CANDIDATES[2:], TREES, NAMES, "{}", version).decode()
    assert text == json.dumps(
        {
            "allocation_requests": [
                {
                    "allocations": {"uuid-1": {"resources": {"VCPU": 1, "DISK_GB": 5}}},
                    "mappings": {"": ["uuid-1"], "_A": ["uuid-1"]},
                }
            ],
            "provider_summaries": {},
        }
    )


def test_empty():
    assert json.loads(EMPTY) == {"allocation_requests": [], "provider_summaries": {}}


@pytest.mark.parametrize("version", [mv.Version(1, 10), mv.Version(1, 12), mv.Version(1, 34)])
def test_one_provider_body_is_body_of_the_same_candidates(version):
    amounts = ((2, 5), (0, 1))
    candidates = [Candidate(((p, 0, 1), (p, 2, 5)), (("_X", (p,)),), (p, p)) for p in (1, 7)]
    assert one_provider_body([1, 7], TREES, NAMES, ("_X", amounts), "{}", version) == body(
        candidates, TREES, NAMES, "{}", version
    )
