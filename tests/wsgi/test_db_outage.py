"""The database crashes and comes back while ten clients claim allocations.

A throw-away MariaDB or PostgreSQL server (never the shared one) is killed
with SIGKILL under a real gunicorn and started again on the same port and
data directory. During the outage every claim is answered 503 in upstream's
error format with ``Retry-After``, promptly; within seconds of the database
answering again claims succeed; and the database holds exactly the claims
the clients were told succeeded. Answers the client never got (connection
error) and 503s saying the connection broke during COMMIT may go either way:
they are counted and printed.

The mapping of database errors to answers is also checked in-process on
SQLite (the engine's connect made to fail), so it runs everywhere.
"""

from __future__ import annotations

import os

import pymysql
import pytest
import sqlalchemy as sa

from placement import db
from tests import dbservers, dbutil, rig
from tests.outage import CLIENT_TIMEOUT, Outage, crash_under_claims, held

#: Seconds from the database answering again to the first successful claim.
RECOVERY_LIMIT = 10.0


def _backend(name: str) -> str:
    if not os.environ.get(dbutil.SERVER_URL_ENV[name]):
        pytest.skip(f"{dbutil.SERVER_URL_ENV[name]} is not set")
    missing = dbservers.missing_binaries(name)
    if missing:
        pytest.skip(f"no {', '.join(missing)} on this machine")
    return name


@pytest.fixture(scope="module")
def app():
    with rig.placement_app("sqlite") as (app, _conf):
        yield app


def _connects_raising(app, monkeypatch, error: Exception) -> None:
    def connect():
        raise error

    monkeypatch.setattr(app.placement_engine, "connect", connect)


def _gone() -> sa.exc.OperationalError:
    return sa.exc.OperationalError("SELECT 1", {}, pymysql.err.OperationalError(2003, "refused"))


def test_an_unreachable_database_is_a_503_with_retry_after(app, monkeypatch):
    _connects_raising(app, monkeypatch, _gone())
    reply = rig.request(
        app, "GET", "/resource_providers", {"X-Auth-Token": "admin", "Accept": "application/json"}
    )
    assert reply.status == 503
    assert reply.headers["retry-after"] == "2"
    error = reply.json()["errors"][0]
    assert error["title"] == "Service Unavailable"
    assert error["detail"].endswith("The database is unavailable.  ")


def test_a_commit_in_doubt_says_so(app, monkeypatch):
    gone = _gone()
    _connects_raising(app, monkeypatch, db.CommitInDoubt("COMMIT", {}, gone.orig))
    status, body = rig.call(app, "GET", "/resource_providers")
    assert status == 503
    assert "may or may not have been made" in body["errors"][0]["detail"]


def test_other_database_errors_are_still_500s(app, monkeypatch):
    error = sa.exc.OperationalError("SELECT 1", {}, pymysql.err.OperationalError(1054, "column"))
    _connects_raising(app, monkeypatch, error)
    status, body = rig.call(app, "GET", "/resource_providers")
    assert status == 500
    assert body["errors"][0]["code"] == "placement.undefined_code"


@pytest.mark.parametrize("backend", ["mysql", "postgresql"])
def test_claims_survive_a_database_crash(backend: str) -> None:
    crash_under_claims(_backend(backend), _check)


def _check(outage: Outage) -> None:
    answers = outage.answers
    unexpected = [a for a in answers if a.status not in (None, 204, 409, 503)]
    assert unexpected == [], [(a.status, a.body) for a in unexpected[:3]]
    unavailable = [a for a in answers if a.status == 503]
    assert unavailable, "no claim was answered while the database was down"
    for answer in unavailable:
        assert answer.headers.get("retry-after", "").isdigit(), answer.headers
        error = answer.body["errors"][0]
        assert error["status"] == 503 and error["title"] == "Service Unavailable", error
        assert "request_id" in error
    during = [a for a in answers if a.sent > outage.killed + 0.5 and a.received < outage.restarted]
    assert during and {a.status for a in during} <= {503, None}, {a.status for a in during}
    assert max(a.received - a.sent for a in answers) < CLIENT_TIMEOUT / 2
    recovery = outage.first_success_after_restart()
    assert recovery is not None and recovery < RECOVERY_LIMIT, recovery

    holding = held(outage.base, outage.providers)
    present = set().union(*holding.values())
    succeeded = {a.consumer for a in answers if a.status == 204}
    failed = {a.consumer for a in answers if a.status in (409, 503) and not a.in_doubt}
    unknown = [a for a in answers if a.status is None or a.in_doubt]
    assert succeeded - present == set(), "claims told 204 are missing"
    assert failed & present == set(), "claims told 409/503 are present"
    assert present <= succeeded | {a.consumer for a in unknown}
    for rp, total in outage.providers.items():
        assert len(holding[rp]) <= total, f"{rp} overcommitted"
    landed = sum(a.consumer in present for a in unknown)
    print(
        f"{len(answers)} claims, {len(succeeded)} succeeded, {len(unavailable)} answered 503,"
        f" {len(unknown)} in doubt ({landed} landed), recovery {recovery:.2f} s"
    )
