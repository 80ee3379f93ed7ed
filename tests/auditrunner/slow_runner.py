"""``placement-audit-runner`` whose strategy runs take ``SLOW_RUN_SECONDS`` longer,
each run recorded (audit uuid, pid, start, end on the wall clock) as one JSON line
in ``RUN_RECORD``: so a test can kill a runner mid-run and read when runs happened.

Run as ``python -m tests.auditrunner.slow_runner <placement-audit-runner args>``.
"""

from __future__ import annotations

import json
import os
import sys
import time

from placement.cmd import audit_runner
from placement.objects.actionplans import audit_runs

_plan = audit_runs.plan


def _slow_recorded_plan(engine, options, claim, measure=None):  # type: ignore[no-untyped-def]
    started = time.time()
    time.sleep(float(os.environ.get("SLOW_RUN_SECONDS", "0")))
    planned = _plan(engine, options, claim, measure)
    with open(os.environ["RUN_RECORD"], "a") as record:
        line = {"audit": claim.uuid, "pid": os.getpid(), "start": started, "end": time.time()}
        record.write(json.dumps(line) + "\n")
    return planned


if __name__ == "__main__":
    audit_runs.plan = _slow_recorded_plan
    sys.exit(audit_runner.main())
