"""What a server move asked of Nova comes to, from Nova's own state (doc/planner.md §6).

A ``migrate`` or ``resize`` done by Nova records its request on the action
before asking (the server's host then, the highest id among the server's
migration records then, the target), so whichever run looks next, the one
that asked or the next owner after a crash, decides from the same facts: the
server as Nova shows it and its migration records newer than the request.

* no request recorded: nothing was asked, START;
* a newer migration record of the right kind: its status decides (a live one
  ``completed`` is DONE; a cold one or a resize ``finished`` with the server in
  VERIFY_RESIZE needs CONFIRM, ``confirmed`` is DONE; ``error``, ``failed``,
  ``cancelled``, ``reverted`` FAILED; anything else WAIT);
* none: the server busy with a task means Nova accepted the request and has
  not written the record yet (WAIT); a server in ERROR FAILED; a server moved
  off the recorded host DONE; otherwise the request never reached Nova, START.

So a request Nova took is never asked again, and one it never saw is asked
once more: a server is never migrated twice because an applier died.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

#: What the caller does next.
START: Final = "start"
WAIT: Final = "wait"
CONFIRM: Final = "confirm"
DONE: Final = "done"
FAILED: Final = "failed"

#: The moves: Nova's ``migration_type`` of each one's records.
Move = Literal["live", "cold", "resize"]
_MIGRATION_TYPES: dict[str, frozenset[str]] = {
    "live": frozenset({"live-migration"}),
    "cold": frozenset({"migration"}),
    "resize": frozenset({"resize"}),
}
#: Migration statuses that end a move without it.
ENDED_BADLY = frozenset({"error", "failed", "cancelled", "reverted"})
VERIFY_RESIZE = "VERIFY_RESIZE"


@dataclass(frozen=True)
class Request:
    """What a run records on the action before asking Nova to move a server, and
    adds to as Nova answers: what the next run, after a crash, reconciles from.

    ``source_host`` and ``migrations_before`` (the highest id among the server's
    migration records then) are what :func:`decide` reads; ``request_id`` is
    Nova's id of the request (for its events), ``migration_id`` Nova's record of
    the move once seen; ``answered`` False when the request was sent and its
    answer lost (Nova may or may not have it: the records decide);
    ``aborted`` the migration a cancel asked Nova to abort.
    """

    server: str
    move: Move
    source_host: str | None
    migrations_before: int
    target_host: str | None = None
    flavor_id: str | None = None
    requested_at: str = ""
    request_id: str | None = None
    migration_id: int | None = None
    answered: bool = True
    aborted: int | None = None

    def to_record(self) -> dict[str, Any]:
        """The action's request record (a JSON object)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> Request | None:
        """The request an earlier run recorded, or None when it recorded none."""
        if not record or "migrations_before" not in record:
            return None
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{name: value for name, value in record.items() if name in names})


@dataclass(frozen=True)
class ServerRequest:
    """What a run records before asking Nova to stop, shelve or delete a server."""

    server: str
    operation: str
    requested_at: str

    def to_record(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Server:
    """The server as Nova shows it: host, status, task state, and its fault if any."""

    host: str | None
    status: str
    task_state: str | None
    fault: str | None = None


@dataclass(frozen=True)
class Migration:
    """One of the server's migration records."""

    id: int
    status: str
    migration_type: str
    source_compute: str | None = None
    dest_compute: str | None = None


@dataclass(frozen=True)
class Decision:
    """What to do next, why, and the migration record it is about (if any)."""

    step: str
    reason: str = ""
    migration: Migration | None = None


def newest_move(request: Request, migrations: Sequence[Migration], move: Move) -> Migration | None:
    """The newest record of this kind of move made since ``request`` was recorded."""
    kinds = _MIGRATION_TYPES[move]
    newer = [
        m for m in migrations if m.id > request.migrations_before and m.migration_type in kinds
    ]
    return max(newer, key=lambda m: m.id, default=None)


def decide(
    request: Request | None, server: Server, migrations: Sequence[Migration], move: Move
) -> Decision:
    """The next step of a move, from what was recorded and what Nova shows now."""
    if request is None:
        return Decision(START, "nothing was asked of Nova yet")
    found = newest_move(request, migrations, move)
    if found is not None:
        return _by_record(found, server, move)
    if server.task_state is not None:
        return Decision(WAIT, f"the server is {server.task_state}, no migration record yet")
    if server.status == "ERROR":
        return Decision(FAILED, f"the server is in ERROR: {server.fault or 'no fault given'}")
    if move != "resize" and server.host != request.source_host:
        return Decision(DONE, f"the server is on {server.host}, no longer on {request.source_host}")
    return Decision(START, "Nova never started the request")


def _by_record(found: Migration, server: Server, move: Move) -> Decision:
    """The next step from the move's own migration record."""
    status = found.status
    if status in ENDED_BADLY:
        fault = f": {server.fault}" if server.fault else ""
        return Decision(FAILED, f"Nova's migration {found.id} ended {status}{fault}", found)
    if move == "live":
        if status == "completed" and server.task_state is None:
            return Decision(DONE, f"Nova's migration {found.id} completed", found)
        return Decision(WAIT, f"Nova's migration {found.id} is {status}", found)
    if status == "confirmed" and server.task_state is None:
        return Decision(DONE, f"Nova's migration {found.id} is confirmed", found)
    if status == "finished" and server.status == VERIFY_RESIZE and server.task_state is None:
        return Decision(CONFIRM, f"Nova's migration {found.id} awaits confirmation", found)
    return Decision(WAIT, f"Nova's migration {found.id} is {status}", found)


#: Server operations that end in a status: the statuses that mean done, and the
#: task states of Nova doing it.
SERVER_GOALS: dict[str, frozenset[str]] = {
    "stop": frozenset({"SHUTOFF"}),
    "shelve": frozenset({"SHELVED", "SHELVED_OFFLOADED"}),
    "delete": frozenset({"DELETED"}),
}


def decide_server_state(asked: bool, server: Server | None, operation: str) -> Decision:
    """The next step of a stop, shelve or delete (``server`` None: Nova has no such
    server any more), ``asked`` whether a request was recorded. Nova sets the task
    state before it answers a request, so a server neither there nor busy was
    never asked (START; a run that has just asked treats that as Nova's refusal).
    An operation already in effect before anything was asked is DONE (the effect
    skips), and so is one on a server that is gone before anything was asked
    (nothing to do, as upstream skips it); gone after the request, it FAILED."""
    goals = SERVER_GOALS[operation]
    status = "DELETED" if server is None else server.status
    if status in goals and (server is None or server.task_state is None):
        return Decision(DONE, f"the server is {status}")
    if server is None:
        return Decision(FAILED if asked else DONE, "the server no longer exists")
    if server.task_state is not None:
        return Decision(WAIT, f"the server is {server.task_state}")
    if server.status == "ERROR" and asked:
        return Decision(FAILED, f"the server is in ERROR: {server.fault or 'no fault given'}")
    if asked:
        return Decision(START, f"the server is {server.status}: Nova never started the request")
    return Decision(START, "nothing was asked of Nova yet")
