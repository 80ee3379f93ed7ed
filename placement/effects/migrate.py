"""``migrate``: move a consumer's allocations from one node's tree to another's.

Skipped when the consumer holds nothing on the source tree any more (so a
migrate replayed after a crash is recognised, not repeated). Without a
``destination_node`` the destination is the first allocation candidate, outside
the source tree and on an enabled node, whose write succeeds. What the consumer
holds outside the source tree (shared storage, say) stays where it is.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.effects import base, destinations, holdings, nodes
from placement.effects.builtin import BuiltinType
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj


def _destination_tree(conn: Connection, wanted: str, source: rp_obj.Provider) -> str | base.Outcome:
    """The root uuid of the named destination, or why it cannot be one."""
    destination = nodes.find_node(conn, wanted)
    if destination is None:
        return base.failed_pre_condition(f"destination node {wanted} not found")
    if nodes.is_disabled(conn, destination):
        return base.failed_pre_condition(f"destination node {wanted} is disabled")
    if destination.root_provider_uuid == source.root_provider_uuid:
        return base.failed_pre_condition(f"destination node {wanted} is the source node's tree")
    return destination.root_provider_uuid


def migrate(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Move ``resource_id``'s allocations off ``source_node``'s tree."""
    consumer, source_name = params["resource_id"], params["source_node"]
    source = nodes.find_node(conn, source_name)
    if source is None:
        return base.failed_pre_condition(f"source node {source_name} not found")
    held = holdings.read(conn, consumer)
    moving = held.on_tree(source.root_provider_uuid) if held else {}
    if held is None or not moving:
        return base.skipped(f"consumer {consumer} has no allocations on {source_name}")
    wanted = params.get("destination_node")
    in_tree = None if wanted is None else _destination_tree(conn, wanted, source)
    if isinstance(in_tree, base.Outcome):
        return in_tree
    staying = held.elsewhere(source.root_provider_uuid)
    refusal = None
    for proposal in destinations.candidates_for(
        env.engine,
        env.conf,
        holdings.totals(moving),
        excluded_root=source.root_provider_uuid,
        in_tree=in_tree,
    ):
        try:
            holdings.rewrite(conn, held, holdings.merge(staying, proposal))
        except exceptions.InvalidAllocation as exc:
            refusal = exc
            continue
        return base.succeeded()
    where = "no enabled node can" if wanted is None else f"destination node {wanted} cannot"
    detail = "" if refusal is None else f": {refusal.message}"
    return base.failed_execute(f"{where} hold consumer {consumer}{detail}")


MIGRATE = BuiltinType(names.MIGRATE, migrate)
