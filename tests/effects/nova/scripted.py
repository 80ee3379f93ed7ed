"""A scripted Nova behind the client's adapter: a small compute API in memory, and faults.

:class:`ScriptedNova` answers the calls the executor makes about one server
(show it, list its migration records, ask a live or cold migration, abort a
live migration, confirm) from a little state it keeps, the way Nova's API
answers them; a test moves that state on (:meth:`ScriptedNova.finish`) and
queues faults for the next matching calls (:meth:`ScriptedNova.fail`): a
keystoneauth exception raised, or a status answered. Every request is kept in
``sent``. The real Nova is exercised by ``tests/nova/``; this is for the seams
of the wait and the ask, where timing a real fault is not possible.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

SERVER = "5e1c0f2a-0000-4000-8000-0000000000aa"

Fault = Callable[[], requests.Response] | Exception


def response(status: int, body: Any = None, headers: dict[str, str] | None = None):
    response = requests.Response()
    response.status_code = status
    response._content = b"" if body is None else json.dumps(body).encode()
    response.headers.update(headers or {})
    response.reason = {202: "Accepted", 409: "Conflict", 503: "Service Unavailable"}.get(status, "")
    return response


def answer(status: int, message: str = "") -> Fault:
    """A fault answered with ``status`` and Nova's error body carrying ``message``."""
    return lambda: response(status, {"error": {"code": status, "message": message}})


@dataclass
class ScriptedNova:
    """One server on ``host``, its migration records, and the faults queued per call."""

    host: str = "compute1"
    status: str = "ACTIVE"
    task_state: str | None = None
    migrations: list[dict[str, Any]] = field(default_factory=list)
    faults: list[tuple[str, str, Fault]] = field(default_factory=list)
    sent: list[tuple[str, str]] = field(default_factory=list)
    #: What happens once the server has been shown that many times (Nova moving on).
    at_look: dict[int, Callable[[], None]] = field(default_factory=dict)
    looks: int = 0

    # -- the test's side --------------------------------------------------------------

    def fail(self, method: str, path_start: str, fault: Fault, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` on a path starting ``path_start`` fail."""
        self.faults.extend([(method, path_start, fault)] * times)

    def finish(self, status: str = "completed", host: str | None = None) -> None:
        """Nova ends the newest move: its record gets ``status``; done, the server is
        on ``host`` with no task."""
        self.migrations[-1]["status"] = status
        self.task_state = None
        if host is not None:
            self.host = host

    def asked(self, method: str, path_start: str) -> int:
        return sum(1 for m, p in self.sent if m == method and p.startswith(path_start))

    # -- the adapter's side -----------------------------------------------------------

    def request(self, path: str, method: str, **kwargs: Any) -> requests.Response:
        self.sent.append((method, path))
        for index, (fault_method, start, fault) in enumerate(self.faults):
            if fault_method == method and path.startswith(start):
                del self.faults[index]
                if isinstance(fault, Exception):
                    raise fault
                return fault()
        return self._answer(method, path, kwargs.get("json"))

    def _answer(self, method: str, path: str, body: Any) -> requests.Response:
        if method == "GET" and path == f"/servers/{SERVER}":
            self.looks += 1
            self.at_look.pop(self.looks, lambda: None)()
            server = {
                "id": SERVER,
                "status": self.status,
                "OS-EXT-SRV-ATTR:host": self.host,
                "OS-EXT-STS:task_state": self.task_state,
            }
            return response(200, {"server": server})
        if method == "GET" and path.startswith("/os-migrations"):
            return response(200, {"migrations": self.migrations})
        if method == "POST" and path == f"/servers/{SERVER}/action":
            return self._action(body)
        if method == "DELETE" and path.startswith(f"/servers/{SERVER}/migrations/"):
            self.finish("cancelled")
            return response(202)
        return response(404, {"itemNotFound": {"code": 404, "message": f"no {path}"}})

    def _action(self, body: dict[str, Any]) -> requests.Response:
        if "os-migrateLive" in body or "migrate" in body:
            if self.task_state is not None:
                return answer(409, f"Cannot migrate while it is in task_state {self.task_state}")()
            live = "os-migrateLive" in body
            self.task_state = "migrating" if live else "resize_migrating"
            self.migrations.append(
                {
                    "id": len(self.migrations) + 7,
                    "status": "running" if live else "migrating",
                    "migration_type": "live-migration" if live else "migration",
                    "source_compute": self.host,
                    "dest_compute": None,
                }
            )
            return response(202, headers={"x-openstack-request-id": "req-scripted"})
        return response(202)
