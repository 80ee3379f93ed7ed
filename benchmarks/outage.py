"""Recovery time after a database crash: database back → first successful claim.

Runs the scenario of ``tests/wsgi/test_db_outage.py`` (``tests/outage.py``)
``--runs`` times per backend: a private MariaDB or PostgreSQL server on a
spare port and a temporary data directory (never the machine's shared one),
gunicorn with two workers on it, ten client threads claiming allocations;
the database is killed with SIGKILL, left down ``--outage`` seconds, and
started again. Reported per run:

* restart: seconds from starting the database again to its first answer
  (crash recovery; not ours to improve);
* recovery: seconds from that first answer to the first 2xx of a claim sent
  after it (what the API adds: pool pre-ping, reconnect);
* 503s and the slowest answer during the outage, and the claims whose
  outcome the clients could not know (no answer, or a 503 saying the commit
  was cut off).

Run from the repository root with the project's virtualenv::

    .venv/bin/python benchmarks/outage.py --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests import dbservers  # noqa: E402
from tests.outage import Outage, crash_under_claims  # noqa: E402


def _report(backend: str, outage: Outage) -> float:
    recovery = outage.first_success_after_restart()
    assert recovery is not None
    during = [a for a in outage.answers if outage.killed < a.sent and a.received < outage.restarted]
    doubtful = sum(a.status is None or a.in_doubt for a in outage.answers)
    unavailable = sum(a.status == 503 for a in outage.answers)
    slowest = max((a.received - a.sent for a in during), default=0.0)
    print(
        f"{backend:10} restart {outage.back - outage.restarted:5.2f} s  recovery {recovery:5.2f} s"
        f"  503s {unavailable:5}  slowest answer while down {slowest:5.3f} s"
        f"  outcome unknown {doubtful}  claims {len(outage.answers)}",
        flush=True,
    )
    return recovery


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--outage", type=float, default=3.0, help="seconds the database is down")
    parser.add_argument("--backends", default="mysql,postgresql")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    for backend in args.backends.split(","):
        if dbservers.missing_binaries(backend):
            print(f"{backend}: skipped, missing {dbservers.missing_binaries(backend)}")
            continue
        recoveries = []
        for _ in range(args.runs):
            started = time.monotonic()
            outage = crash_under_claims(backend, lambda _result: None, outage=args.outage)
            recoveries.append(_report(backend, outage))
            print(f"  (run took {time.monotonic() - started:.0f} s)", flush=True)
        print(
            f"{backend:10} recovery median {statistics.median(recoveries):.2f} s,"
            f" max {max(recoveries):.2f} s over {len(recoveries)} runs",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
