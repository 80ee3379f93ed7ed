"""What a cancelled plan does to a move Nova is making, and what the action then says.

A live migration in flight is aborted, as upstream Watcher aborts it: Nova is
asked to abort its migration record (``DELETE /servers/{id}/migrations/{id}``,
recorded on the action as ``aborted``) and watched until the record ends. The
action then says what Nova did: the migration aborted and the server where it
was (CANCELLED), or completed before the abort took (SUCCEEDED: the server did
move). A cold migration or a resize cannot be aborted: the action says where
Nova stands with it (finished and awaiting confirmation, which is left to the
operator, or still Nova's to finish) and is CANCELLED.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

from placement.effects import base
from placement.effects.nova import client, common, reconcile

#: The statuses in which Nova aborts a live migration (2.24: ``running`` only; the
#: earlier ones are waited through).
ABORTABLE = frozenset({"running"})


def on_cancel(
    nova: client.Nova, env: base.RunEnv, request: reconcile.Request, what: str
) -> base.Outcome:
    """The outcome of a move cancelled while Nova made it (module docstring)."""
    if request.move == "live":
        return _abort(nova, env, request, what)
    return _left_to_nova(nova, request, what)


def _cancelled(text: str) -> base.Outcome:
    return base.Outcome(base.cancelled().state, f"Action cancelled: {text}")


def _abort(
    nova: client.Nova, env: base.RunEnv, request: reconcile.Request, what: str
) -> base.Outcome:
    """Abort the live migration once Nova runs it, and wait for its record to end,
    within the move's own bound (the cancel that led here cannot cut it short)."""
    watch = _Abort(nova, env, request)
    uncancellable = dataclasses.replace(env, cancelled=threading.Event())
    timeout = common.timeout_of(env, "migration_timeout")
    try:
        return common.until(uncancellable, timeout, watch.look, f"end the migration ({what})")
    except common.TimedOut as exc:
        return base.failed_execute(
            f"the plan was cancelled and the migration aborted, but {exc}: Nova's records"
            " will tell where the server is"
        )


@dataclass
class _Abort:
    """One look at a live migration being aborted; the outcome once its record ends."""

    nova: client.Nova
    env: base.RunEnv
    request: reconcile.Request

    def look(self) -> base.Outcome | None:
        server_id = self.request.server
        server = self.nova.server_state(server_id)
        if server is None:
            return _cancelled(f"server {server_id} was deleted while Nova moved it")
        decision = reconcile.decide(self.request, server, self.nova.migrations(server_id), "live")
        if decision.step == reconcile.DONE:
            return base.Outcome(
                base.succeeded().state,
                f"Nova completed the live migration of server {server_id} to {server.host}"
                " before it could be aborted",
            )
        if decision.step in (reconcile.FAILED, reconcile.START):
            return _cancelled(
                f"the live migration of server {server_id} was aborted ({decision.reason});"
                f" the server stays on {server.host}"
            )
        migration = decision.migration
        if migration is not None and migration.status in ABORTABLE and not self.request.aborted:
            self._ask(migration.id)
        return None

    def _ask(self, migration_id: int) -> None:
        """Ask Nova to abort ``migration_id`` and record it; refused as too early or too
        late (400, 409), the next look decides."""
        try:
            self.nova.abort_live_migration(self.request.server, migration_id)
        except client.Unreachable:
            return
        except client.NovaError as exc:
            if exc.status in (400, 409):
                return
            raise
        self.request = dataclasses.replace(self.request, aborted=migration_id)
        self.env.record(self.request.to_record())


def _left_to_nova(nova: client.Nova, request: reconcile.Request, what: str) -> base.Outcome:
    """A cold migration or resize: say where Nova stands with it."""
    try:
        server = nova.server_state(request.server)
    except client.NovaError as exc:
        return _cancelled(
            f"the plan was cancelled while Nova would {what}; Nova, not reachable"
            f" to tell where it stands ({exc}), finishes it on its own"
        )
    if server is not None and server.status == reconcile.VERIFY_RESIZE:
        return _cancelled(
            f"the plan was cancelled once Nova had finished; it is not confirmed: server"
            f" {request.server} awaits confirmation (or revert) on {server.host}"
        )
    state = "gone" if server is None else f"{server.status}, {server.task_state or 'no task'}"
    return _cancelled(
        f"the plan was cancelled while Nova would {what}; Nova cannot abort it and"
        f" finishes it on its own (the server is {state})"
    )
