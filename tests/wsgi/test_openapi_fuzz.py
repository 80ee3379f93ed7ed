"""schemathesis against a real server on SQLite holds the service to its description.

Requests are generated from ``/openapi.json`` itself (bodies, queries and
path fields from the schemas the handlers validate with, links followed from
the operations that create things) with a fixed seed and a bounded number of
examples per operation, and sent to gunicorn as an administrator (noauth2).

- Valid requests (``positive``): every answer must have a documented status,
  content type and body, and no answer may be a 5xx.
- Invalid ones (``negative``: a wrong type, a missing field, a bad header):
  no answer may be a 5xx (what they are answered is the 4xx each route words).

Either way a request not answered within :data:`TIMEOUT` seconds is an error.
The two runs take about two minutes on two cores.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import rig, server

SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")
#: Seconds any one request may take.
TIMEOUT = 10
SEED = 1339
RUNS = {
    "positive": (
        "--checks",
        "not_a_server_error,status_code_conformance,content_type_conformance,"
        "response_schema_conformance",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        "75",
    ),
    "negative": (
        "--checks",
        "not_a_server_error",
        "--phases",
        "coverage,fuzzing",
        "--max-examples",
        "40",
    ),
}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'placement.sqlite'}"
    rig.migrated(url)
    with server.gunicorn(url, workers=2) as base:
        yield base


@pytest.mark.parametrize("mode", sorted(RUNS))
def test_no_operation_answers_outside_its_description(base_url, mode, tmp_path):
    run = subprocess.run(
        [
            SCHEMATHESIS,
            "--no-color",
            "run",
            f"{base_url}/openapi.json",
            "--url",
            base_url,
            "--header",
            "X-Auth-Token: admin",
            "--mode",
            mode,
            *RUNS[mode],
            "--seed",
            str(SEED),
            "--request-timeout",
            str(TIMEOUT),
            # One worker: schemathesis's threads can trip over each other's
            # first use of hypothesis internals ("AST constructor recursion
            # depth mismatch"), an error of the tool, not of the API.
            "--workers",
            "1",
            "--generation-database",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
