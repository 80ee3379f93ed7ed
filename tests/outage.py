"""A database crash under load, seen by clients of a real placement server.

:func:`crash_under_claims` runs the scenario that ``tests/wsgi/test_db_outage.py``
checks and ``benchmarks/outage.py`` times: a throw-away database server
(:mod:`tests.dbservers`), gunicorn with two workers on it, and client
threads claiming allocations for new consumers (``PUT /allocations/{c}``,
``consumer_generation: null``) while the database is killed with SIGKILL and
started again. Every answer is recorded with when it was sent and received.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tests import dbservers, dbutil, rig
from tests.server import gunicorn

#: Seconds a client waits for an answer; a request never should take this long.
CLIENT_TIMEOUT = 20.0

#: The provider that fills up (so overcommit would show) and the roomy ones
#: (so claims succeed again after the restart).
SMALL_TOTAL = 40
ROOMY_TOTAL = 100_000


@dataclass
class Answer:
    """One claim: its consumer and provider, when it went out and came back, what came back."""

    consumer: str
    provider: str
    sent: float
    received: float
    status: int | None  # None: no answer (connection error or timeout)
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    failure: str = ""

    @property
    def in_doubt(self) -> bool:
        """The server said it lost the database during COMMIT: either outcome is right."""
        return self.status == 503 and "may or may not" in json.dumps(self.body)


@dataclass
class Outage:
    """What :func:`crash_under_claims` saw; times are ``time.monotonic()``."""

    base: str
    answers: list[Answer]
    killed: float
    restarted: float  # the database server was started again
    back: float  # the restarted database answered its first query
    providers: dict[str, int]  # uuid -> VCPU total

    def first_success_after_restart(self) -> float | None:
        """Seconds from the database being back to the first 2xx of a claim sent after."""
        times = [
            a.received
            for a in self.answers
            if a.sent >= self.back and a.status is not None and a.status < 300
        ]
        return min(times) - self.back if times else None


def call(base: str, method: str, path: str, body: Any = None) -> tuple[int, dict, Any]:
    """One request as the admin at microversion 1.28: (status, headers, JSON body)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port, timeout=CLIENT_TIMEOUT
    )
    headers = {
        "x-auth-token": "admin",
        "accept": "application/json",
        "openstack-api-version": "placement 1.28",
    }
    if body is not None:
        headers["content-type"] = "application/json"
    try:
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        return (
            resp.status,
            {k.lower(): v for k, v in resp.getheaders()},
            (json.loads(raw) if raw else None),
        )
    finally:
        conn.close()


def _provider(base: str, total: int) -> str:
    rp = str(uuid.uuid4())
    assert call(base, "POST", "/resource_providers", {"name": rp, "uuid": rp})[0] == 200
    inventories = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}}
    assert call(base, "PUT", f"/resource_providers/{rp}/inventories", inventories)[0] == 200
    return rp


def _claim(base: str, providers: list[str], rng: random.Random) -> Answer:
    consumer, provider = str(uuid.uuid4()), rng.choice(providers)
    body = {
        "allocations": {provider: {"resources": {"VCPU": 1}}},
        "project_id": "outage",
        "user_id": "claimer",
        "consumer_generation": None,
    }
    sent = time.monotonic()
    try:
        status, headers, answer = call(base, "PUT", f"/allocations/{consumer}", body)
    except (OSError, http.client.HTTPException) as exc:
        return Answer(consumer, provider, sent, time.monotonic(), None, failure=repr(exc))
    return Answer(consumer, provider, sent, time.monotonic(), status, headers, answer)


def held(base: str, providers: dict[str, int]) -> dict[str, set[str]]:
    """The consumers holding each provider's VCPU, asked of the server."""
    found = {}
    for rp in providers:
        status, _, body = call(base, "GET", f"/resource_providers/{rp}/allocations")
        assert status == 200, body
        found[rp] = set(body["allocations"])
    return found


def crash_under_claims(
    backend: str, check: Callable[[Outage], None], *, clients: int = 10, outage: float = 3.0
) -> Outage:
    """Claim with ``clients`` threads, crash the database for ``outage`` s, restart it.

    The clients stop one second after the first claim sent after the restart
    succeeded; ``check(result)`` is then called while the server still runs,
    so it can ask what the database holds (:func:`held`).
    """
    answers: list[Answer] = []
    stop = threading.Event()
    with dbservers.throwaway(backend) as server:
        url = dbutil.fresh_database_url(server.url)
        rig.migrated(url)
        with gunicorn(url, workers=2) as base:
            providers = {_provider(base, SMALL_TOTAL): SMALL_TOTAL}
            providers.update({_provider(base, ROOMY_TOTAL): ROOMY_TOTAL for _ in range(2)})
            lock = threading.Lock()

            def client(seed: int) -> None:
                rng = random.Random(seed)
                while not stop.is_set():
                    answer = _claim(base, list(providers), rng)
                    with lock:
                        answers.append(answer)

            threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
            for thread in threads:
                thread.start()
            try:
                _wait_for(lambda: sum(a.status == 204 for a in answers) >= 2 * SMALL_TOTAL)
                killed = time.monotonic()
                server.kill()
                time.sleep(outage)
                restarted = time.monotonic()
                server.start()
                back = time.monotonic()
                _wait_for(lambda: any(a.sent >= back and a.status == 204 for a in answers))
                time.sleep(1.0)
            finally:
                stop.set()
                for thread in threads:
                    thread.join()
            result = Outage(base, list(answers), killed, restarted, back, providers)
            check(result)
    return result


def _wait_for(condition: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)
