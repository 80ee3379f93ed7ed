"""``migrate`` and ``resize`` done by Nova: what is asked, after upstream's checks.

Each checks what upstream's action checks before anything is asked (skipped:
nothing to move; failed: a destination or flavor Nova does not know), chooses
the move, and leaves asking, waiting, confirming and reconciling after a crash
to :mod:`~placement.effects.nova.moving`.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types import names
from placement.effects import base
from placement.effects.nova import client, common, reconcile
from placement.effects.nova.moving import Move, carry_out, no_server


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
            return no_server(server_id)
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
    recorded = reconcile.Request.from_record(env.recorded)
    if recorded is not None:
        return recorded.move
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
        return no_server(server_id)
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
