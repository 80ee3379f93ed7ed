"""Nodes as plans name them: a provider uuid or a provider name, and the tree it roots.

Compute-node providers are named after their host, so ``source_node`` may say
``compute-1`` or the provider's uuid; both lead to the same provider here.
"""

from __future__ import annotations

import os_traits
from sqlalchemy import select
from sqlalchemy.engine import Connection

from placement.db import tables
from placement.objects import conditions
from placement.objects import resource_provider as rp_obj

_RP = tables.resource_providers

#: The trait nova sets on a disabled compute service's node.
DISABLED_TRAIT = os_traits.COMPUTE_STATUS_DISABLED


def find_node(conn: Connection, ident: str) -> rp_obj.Provider | None:
    """The provider with uuid ``ident``, else the one named ``ident``, else None."""
    found = rp_obj.get_by_uuid(conn, ident)
    if found is not None:
        return found
    provider_id = conn.execute(select(_RP.c.id).where(_RP.c.name == ident)).scalar()
    if provider_id is None:
        return None
    return rp_obj.get_by_ids(conn, [provider_id]).get(provider_id)


def tree_providers(conn: Connection, node: rp_obj.Provider) -> list[rp_obj.Provider]:
    """Every provider of the tree ``node`` belongs to, in id order."""
    ids = conn.execute(
        select(_RP.c.id).where(_RP.c.root_provider_id == node.root_provider_id)
    ).scalars()
    return sorted(rp_obj.get_by_ids(conn, ids).values(), key=lambda p: p.id)


def has_trait(conn: Connection, provider_id: int, name: str) -> bool:
    """Whether the provider carries trait ``name``."""
    return conditions.anyone(
        conn, _RP.c.id == provider_id, conditions.has_trait_named(_RP.c.id, name)
    )


def is_disabled(conn: Connection, node: rp_obj.Provider) -> bool:
    """Whether the node, or the root of its tree, is marked disabled."""
    return has_trait(conn, node.id, DISABLED_TRAIT) or has_trait(
        conn, node.root_provider_id, DISABLED_TRAIT
    )
