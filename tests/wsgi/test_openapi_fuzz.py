"""schemathesis against a real server on SQLite holds the service to its description.

Requests are generated from ``/openapi.json`` itself (bodies and queries from
the schemas the handlers validate with) with a fixed seed and a bounded number
of examples per operation, sent to gunicorn as an administrator (noauth2),
and every answer is checked: no 5xx, a documented status, a body and
content type the description allows, and no request answered after
:data:`TIMEOUT` seconds (schemathesis fails a request that times out).
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests import rig, server

SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")
#: Seconds any one request may take.
TIMEOUT = 10
#: Examples per operation and phase; the whole run takes about two minutes on two cores.
EXAMPLES = 75
SEED = 1339
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
)


def test_no_operation_answers_outside_its_description(tmp_path):
    url = f"sqlite:///{tmp_path / 'placement.sqlite'}"
    rig.migrated(url)
    with server.gunicorn(url, workers=2) as base:
        run = subprocess.run(
            [
                SCHEMATHESIS,
                "--no-color",
                "run",
                f"{base}/openapi.json",
                "--url",
                base,
                "--header",
                "X-Auth-Token: admin",
                "--checks",
                ",".join(CHECKS),
                "--mode",
                "positive",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                "--max-examples",
                str(EXAMPLES),
                "--seed",
                str(SEED),
                "--request-timeout",
                str(TIMEOUT),
                "--workers",
                "2",
                "--generation-database",
                "none",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
