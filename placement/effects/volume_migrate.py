"""``volume_migrate``: move what a consumer holds on sharing providers to another one.

A volume lives on shared storage: a provider carrying ``MISC_SHARES_VIA_AGGREGATE``.
Its allocations there move to ``destination_node`` (a provider uuid or name),
the rest of the consumer's allocations staying as they are.
"""

from __future__ import annotations

from typing import Any

import os_traits
from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.effects import base, holdings, nodes
from placement.effects.builtin import BuiltinType
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj


def volume_migrate(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Move ``resource_id``'s shared allocations to ``destination_node``."""
    consumer, wanted = params["resource_id"], params.get("destination_node")
    if wanted is None:
        return base.failed_pre_condition("volume_migrate needs a destination_node here")
    destination = nodes.find_node(conn, wanted)
    if destination is None:
        return base.failed_pre_condition(f"destination node {wanted} not found")
    held = holdings.read(conn, consumer)
    if held is None:
        return base.skipped(f"consumer {consumer} has no allocations")
    sharing = rp_obj.get_by_uuids(conn, held.allocations)
    moving = {
        uuid: resources
        for uuid, resources in held.allocations.items()
        if uuid != destination.uuid
        and nodes.has_trait(conn, sharing[uuid].id, os_traits.MISC_SHARES_VIA_AGGREGATE)
    }
    if not moving:
        return base.skipped(f"consumer {consumer} holds nothing on other sharing providers")
    staying = {u: r for u, r in held.allocations.items() if u not in moving}
    arriving = {destination.uuid: holdings.totals(moving)}
    try:
        holdings.rewrite(conn, held, holdings.merge(staying, arriving))
    except exceptions.InvalidAllocation as exc:
        return base.failed_execute(exc.message)
    return base.succeeded()


VOLUME_MIGRATE = BuiltinType(names.VOLUME_MIGRATE, volume_migrate)
