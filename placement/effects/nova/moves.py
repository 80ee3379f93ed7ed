"""``migrate`` and ``resize`` done by Nova: ask once, wait, confirm, and reconcile after a crash.

Before asking, the run records the request on the action (server, source and
target hosts, the highest id among the server's migration records, when);
once Nova's migration record appears its id is added. Every look at Nova then
goes through :func:`placement.actionplans.reconcile.decide`, in the run that
asked and in a later run after a crash alike: a request Nova took is waited
for (and confirmed, for a cold migration or a resize), never asked again.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from placement.actionplans import reconcile
from placement.actionplans.action_types import names
from placement.effects import base
from placement.effects.nova import client, common


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


def _recorded(env: base.RunEnv) -> reconcile.Request | None:
    found = env.recorded
    if not found or "migrations_before" not in found:
        return None
    return reconcile.Request(
        source_host=found.get("source_host"),
        migrations_before=int(found["migrations_before"]),
        target_host=found.get("target_host"),
    )


def _ask(nova: client.Nova, env: base.RunEnv, move: Move) -> dict[str, Any]:
    """Record the request, then ask Nova; returns what was recorded (with Nova's
    request id)."""
    before = max((m.id for m in nova.migrations(move.server_id)), default=0)
    request = {
        "server": move.server_id,
        "move": move.kind,
        "source_host": move.source_host,
        "target_host": move.target_host,
        "flavor_id": move.flavor_id,
        "migrations_before": before,
        "requested_at": datetime.datetime.now(datetime.timezone.utc).isoformat(),
    }
    env.record(request)
    try:
        request_id = _request(nova, move)
    except client.NovaError as exc:
        # Nova refuses some moves in its answer (a destination its scheduler
        # rejects: "No valid host was found. "): say what was refused.
        raise type(exc)(f"Nova refused to {move.what}: {str(exc).strip()}", exc.status) from None
    recorded = {**request, "request_id": request_id}
    env.record(recorded)
    return recorded


def _request(nova: client.Nova, move: Move) -> str | None:
    """Ask Nova for the move; Nova's request id."""
    if move.kind == "live":
        return nova.live_migrate(move.server_id, move.target_host)
    if move.kind == "cold":
        return nova.cold_migrate(move.server_id, move.target_host)
    return nova.resize(move.server_id, str(move.flavor_id))


def _no_server(server_id: str) -> base.Outcome:
    """Skip a move of a consumer Nova has no server for: deleted since it was planned,
    or never a server (Nova 34 types no allocations, so what it holds on a source
    node for a migration in flight reads as a server to the strategies)."""
    return base.skipped(
        f"Nova has no server {server_id}: deleted since planned, or not a server"
        " (what Nova holds for a migration in flight)"
    )


def carry_out(nova: client.Nova, env: base.RunEnv, move: Move) -> base.Outcome:
    """Reconcile with what an earlier run asked, ask if nothing was taken, wait until
    Nova is done (confirming once), within the move's bound."""
    server = nova.server_state(move.server_id)
    if server is None:
        return _no_server(move.server_id)
    earlier = _recorded(env)
    decision = reconcile.decide(earlier, server, nova.migrations(move.server_id), move.kind)
    if earlier is None or decision.step == reconcile.START:
        asked = _ask(nova, env, move)
    else:
        asked = dict(env.recorded or {})
    request = reconcile.Request(
        asked.get("source_host"), int(asked["migrations_before"]), asked.get("target_host")
    )
    request_id = asked.get("request_id")
    watcher = _Watch(nova, env, move, request, asked)
    try:
        decision = common.until(
            env, common.timeout_of(env, move.timeout_option), watcher.look, move.what
        )
    except common.TimedOut as exc:
        return base.failed_execute(f"{exc} (server {move.server_id})")
    except common.Cancelled:
        return common.cancelled_while(move.what)
    if decision.step == reconcile.DONE:
        return base.succeeded()
    details = nova.failure_details(move.server_id, request_id)
    reason = decision.reason if details is None else f"{decision.reason}: {details}"
    return base.failed_execute(f"server {move.server_id}: {reason}")


@dataclass
class _Watch:
    """One look at Nova per poll: confirm when it is time, note the migration record."""

    nova: client.Nova
    env: base.RunEnv
    move: Move
    request: reconcile.Request
    recorded: dict[str, Any]
    noted: int | None = None

    def look(self) -> reconcile.Decision | None:
        server_id = self.move.server_id
        server = self.nova.server_state(server_id)
        if server is None:
            return reconcile.Decision(reconcile.FAILED, "the server no longer exists")
        decision = reconcile.decide(
            self.request, server, self.nova.migrations(server_id), self.move.kind
        )
        if decision.migration is not None and decision.migration.id != self.noted:
            self.noted = decision.migration.id
            self.env.record({**self.recorded, "migration_id": self.noted})
        if decision.step == reconcile.CONFIRM:
            self.nova.confirm_resize(server_id)
            return None
        if decision.step == reconcile.START:
            # Asked (by this run, or by the earlier one it reconciled with): Nova
            # sets the task state before it answers, so an idle server it never
            # moved, with no record of the move, is a request Nova dropped.
            return reconcile.Decision(reconcile.FAILED, f"Nova did not {self.move.what}")
        if decision.step == reconcile.WAIT:
            return None
        return decision


def migrate(nova: client.Nova, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Live or cold migrate ``resource_id`` off ``source_node`` (to ``destination_node``,
    else where Nova's scheduler chooses).

    As upstream: skipped when there is nothing to move (no such server, or it is not
    on the source node), failed when the destination is unknown or the source itself.
    """
    server_id = params["resource_id"]
    try:
        source = common.hypervisor_of(nova, env, params["source_node"])
    except (common.NodeNotFound, client.NotFound) as exc:
        return base.failed_pre_condition(str(exc))
    server = None
    if env.recorded is None:
        server = nova.server_state(server_id)
        if server is None:
            return _no_server(server_id)
        if server.host != source.host:
            return base.skipped(f"server {server_id} is not on {params['source_node']}")
    wanted = params.get("destination_node")
    try:
        target = None if wanted is None else common.hypervisor_of(nova, env, wanted)
    except (common.NodeNotFound, client.NotFound) as exc:
        return base.failed_pre_condition(str(exc))
    if target is not None and target.host == source.host:
        return base.failed_pre_condition(f"destination node {wanted} is the source node's host")
    kind = _migration_kind(params, env, server)
    move = Move(
        server_id=server_id,
        kind=kind,
        source_host=source.host,
        target_host=None if target is None else target.host,
        timeout_option="migration_timeout",
        what=f"{kind} migrate server {server_id} off {source.host}",
    )
    return carry_out(nova, env, move)


#: The status of a server Nova has stopped: it can be migrated cold, not live.
STOPPED = "SHUTOFF"


def _migration_kind(
    params: dict[str, Any], env: base.RunEnv, server: reconcile.Server | None
) -> reconcile.Move:
    """The migration to ask of Nova: the one an earlier run recorded (after a crash
    the server's status says nothing about what was asked), else the plan's, except
    that a strategy's live migration of a server Nova shows stopped is made cold.
    Nova live-migrates running servers only ("Cannot 'os-migrateLive' instance ...
    while it is in vm_state stopped"), and a strategy planning from Placement cannot
    tell; upstream Watcher's strategies choose cold for such a server from Nova's
    state. Actions written by hand (``actuator``) are done as written: a live
    migration of a stopped server fails, as upstream's does."""
    recorded = (env.recorded or {}).get("move")
    if recorded in ("live", "cold"):
        return "live" if recorded == "live" else "cold"
    if params["migration_type"] == "cold":
        return "cold"
    if env.as_written or server is None or server.status != STOPPED:
        return "live"
    return "cold"


def resize(nova: client.Nova, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Resize ``resource_id`` to ``flavor`` (a Nova flavor id or name), then confirm.

    As upstream: skipped when Nova has no such server, failed when it has no such
    flavor."""
    server_id, flavor = params["resource_id"], params["flavor"]
    if env.recorded is None and nova.server_state(server_id) is None:
        return _no_server(server_id)
    try:
        flavor_id = nova.flavor_id(flavor)
        found = nova.server(server_id)
    except client.NotFound as exc:
        return base.failed_pre_condition(str(exc))
    current = (found.get("flavor") or {}).get("original_name")
    if env.recorded is None and current == flavor:
        return base.skipped(f"server {server_id} already has flavor {flavor}")
    move = Move(
        server_id=server_id,
        kind="resize",
        source_host=found.get("OS-EXT-SRV-ATTR:host"),
        target_host=None,
        timeout_option="resize_timeout",
        what=f"resize server {server_id} to flavor {flavor}",
        flavor_id=flavor_id,
    )
    return carry_out(nova, env, move)


MIGRATE = common.NovaType(names.MIGRATE, migrate)
RESIZE = common.NovaType(names.RESIZE, resize)
