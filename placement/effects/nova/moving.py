"""Carrying out one move of a server through Nova: ask once, wait, confirm, reconcile.

Before asking, the run records the request on the action
(:class:`~placement.effects.nova.reconcile.Request`: server, kind, hosts, the
highest id among the server's migration records, when), and adds Nova's request
id when Nova answers and its migration record's id once seen. Every look at Nova
then goes through :func:`~placement.effects.nova.reconcile.decide`, in the run
that asked and in a later run after a crash alike: a request Nova took is
waited for (and confirmed, for a cold migration or a resize), never asked again.

Nova out of reach is not Nova refusing. A look that cannot reach it looks
again (:func:`~placement.effects.nova.common.until`); a request whose answer is
lost is recorded unanswered, and the looks that follow decide from Nova's
records: Nova busy with it, or a record of it, means it was taken; Nova idle
with no record means it never arrived, and it is asked again (a 409 then means
Nova had it after all). A cancel while Nova moves the server is
:mod:`~placement.effects.nova.aborting`'s.
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass

from placement.effects import base
from placement.effects.nova import aborting, client, common, reconcile


@dataclass(frozen=True)
class Move:
    """One move to ask of Nova: the server, the kind, the hosts, and how to ask."""

    server_id: str
    kind: reconcile.Move
    source_host: str | None
    target_host: str | None
    timeout_option: str
    what: str
    flavor_id: str | None = None


def no_server(server_id: str) -> base.Outcome:
    """Skip a move of a consumer Nova has no server for: deleted since it was planned,
    or never a server (Nova 34 types no allocations, so what it holds on a source
    node for a migration in flight reads as a server to the strategies)."""
    return base.skipped(
        f"Nova has no server {server_id}: deleted since planned, or not a server"
        " (what Nova holds for a migration in flight)"
    )


def _send(nova: client.Nova, move: Move) -> str | None:
    """Ask Nova for the move; Nova's request id."""
    if move.kind == "live":
        return nova.live_migrate(move.server_id, move.target_host)
    if move.kind == "cold":
        return nova.cold_migrate(move.server_id, move.target_host)
    return nova.resize(move.server_id, str(move.flavor_id))


def _refused(move: Move, exc: client.NovaError) -> client.NovaError:
    """Nova's refusal of the move, saying what was refused (a destination its
    scheduler rejects: "No valid host was found. ")."""
    return type(exc)(f"Nova refused to {move.what}: {str(exc).strip()}", exc.status)


def _ask(nova: client.Nova, env: base.RunEnv, move: Move) -> reconcile.Request:
    """Record the request, then ask Nova; the request as recorded last (with Nova's
    request id, or unanswered when the answer was lost)."""
    request = reconcile.Request(
        server=move.server_id,
        move=move.kind,
        source_host=move.source_host,
        migrations_before=max((m.id for m in nova.migrations(move.server_id)), default=0),
        target_host=move.target_host,
        flavor_id=move.flavor_id,
        requested_at=datetime.datetime.now(datetime.timezone.utc).isoformat(),
    )
    env.record(request.to_record())
    try:
        request_id = _send(nova, move)
    except client.Unreachable:
        request = dataclasses.replace(request, answered=False)
    except client.NovaError as exc:
        raise _refused(move, exc) from None
    else:
        request = dataclasses.replace(request, request_id=request_id)
    env.record(request.to_record())
    return request


def carry_out(nova: client.Nova, env: base.RunEnv, move: Move) -> base.Outcome:
    """Reconcile with what an earlier run asked, ask if nothing was taken, wait until
    Nova is done (confirming once), within the move's bound."""
    server = nova.server_state(move.server_id)
    if server is None:
        return no_server(move.server_id)
    request = reconcile.Request.from_record(env.recorded)
    decision = reconcile.decide(request, server, nova.migrations(move.server_id), move.kind)
    if request is None or decision.step == reconcile.START:
        request = _ask(nova, env, move)
    watch = _Watch(nova, env, move, request)
    try:
        decision = common.until(
            env, common.timeout_of(env, move.timeout_option), watch.look, move.what
        )
    except common.TimedOut as exc:
        return base.failed_execute(f"{exc} (server {move.server_id})")
    except common.Cancelled:
        return aborting.on_cancel(nova, env, watch.request, move.what)
    if decision.step == reconcile.DONE:
        return base.succeeded()
    details = nova.failure_details(move.server_id, watch.request.request_id)
    reason = decision.reason if details is None else f"{decision.reason}: {details}"
    return base.failed_execute(f"server {move.server_id}: {reason}")


@dataclass
class _Watch:
    """One look at Nova per poll: confirm when it is time, note the migration record,
    ask again a request whose answer was lost and that Nova never saw."""

    nova: client.Nova
    env: base.RunEnv
    move: Move
    request: reconcile.Request

    def _note(self, request: reconcile.Request) -> None:
        self.env.record(request.to_record())
        self.request = request

    def look(self) -> reconcile.Decision | None:
        server_id = self.move.server_id
        server = self.nova.server_state(server_id)
        if server is None:
            return reconcile.Decision(reconcile.FAILED, "the server no longer exists")
        decision = reconcile.decide(
            self.request, server, self.nova.migrations(server_id), self.move.kind
        )
        if decision.migration is not None and decision.migration.id != self.request.migration_id:
            self._note(dataclasses.replace(self.request, migration_id=decision.migration.id))
        if decision.step == reconcile.CONFIRM:
            self.nova.confirm_resize(server_id)
            return None
        if decision.step == reconcile.START and not self.request.answered:
            self._ask_again()
            return None
        if decision.step == reconcile.START:
            # Asked and answered (by this run, or by the earlier one it reconciled
            # with): Nova sets the task state before it answers, so an idle server
            # it never moved, with no record of the move, is a request Nova dropped.
            return reconcile.Decision(reconcile.FAILED, f"Nova did not {self.move.what}")
        if decision.step == reconcile.WAIT:
            return None
        return decision

    def _ask_again(self) -> None:
        """Nova shows nothing of a request whose answer was lost: send it again. Still
        no answer: the next look decides again; a 409 (the server busy): Nova has it."""
        try:
            request_id = _send(self.nova, self.move)
        except client.Unreachable:
            return
        except client.NovaError as exc:
            if exc.status == 409:
                return
            raise _refused(self.move, exc) from None
        self._note(dataclasses.replace(self.request, answered=True, request_id=request_id))
