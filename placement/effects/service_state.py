"""``change_nova_service_state``: mark a node disabled or enabled, as nova does.

Nova's compute service puts the standard trait ``COMPUTE_STATUS_DISABLED`` on
its node provider while the service is disabled, and schedulers ask for
candidates without it; adding or removing that one trait is the whole effect.
The provider's generation is bumped by compare-and-swap, as any trait change.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.db import tables
from placement.effects import base, nodes
from placement.effects.builtin import BuiltinType
from placement.effects.races import run_again_on_race
from placement.objects import resource_provider as rp_obj
from placement.objects import trait

#: Requested states that disable; "enabled" and "up" enable.
DISABLING = frozenset({"disabled", "down"})


def set_disabled(conn: Connection, node: rp_obj.Provider, disabled: bool) -> bool:
    """Add or remove the disabled trait on ``node``; False when it was already so."""
    if nodes.has_trait(conn, node.id, nodes.DISABLED_TRAIT) == disabled:
        return False
    trait_id = trait.trait_id(conn, nodes.DISABLED_TRAIT)
    link = tables.resource_provider_traits
    with run_again_on_race():
        rp_obj.increment_generation(conn, node.id, node.generation)
    if disabled:
        conn.execute(
            insert(link).values(
                resource_provider_id=node.id, trait_id=trait_id, created_at=tables.utcnow()
            )
        )
    else:
        conn.execute(
            delete(link).where(link.c.resource_provider_id == node.id, link.c.trait_id == trait_id)
        )
    return True


def change_service_state(
    conn: Connection, params: dict[str, Any], env: base.RunEnv
) -> base.Outcome:
    """Disable or enable node ``resource_id``."""
    ident, state = params["resource_id"], params["state"]
    node = nodes.find_node(conn, ident)
    if node is None:
        return base.failed_pre_condition(f"node {ident} not found")
    if not set_disabled(conn, node, state in DISABLING):
        return base.skipped(f"node {ident} is already {state}")
    return base.succeeded()


CHANGE_NOVA_SERVICE_STATE = BuiltinType(names.CHANGE_NOVA_SERVICE_STATE, change_service_state)
