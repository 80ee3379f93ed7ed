"""Where a consumer runs now, read from Placement's own allocations (for planners)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from placement.actionplans.errors import ConsumerHasNoAllocations
from placement.db import tables


def current_host(conn: Connection, consumer_uuid: str) -> str:
    """The name of the root provider holding ``consumer_uuid``'s allocations.

    A consumer whose allocations span several trees (unusual for an instance)
    is placed on the root with the lowest id, so the answer is stable.
    Raises ConsumerHasNoAllocations when it holds nothing.
    """
    provider = tables.resource_providers.alias("provider")
    root = tables.resource_providers.alias("root")
    alloc = tables.allocations
    query = (
        select(root.c.name)
        .select_from(
            alloc.join(provider, provider.c.id == alloc.c.resource_provider_id).join(
                root, root.c.id == func.coalesce(provider.c.root_provider_id, provider.c.id)
            )
        )
        .where(alloc.c.consumer_id == consumer_uuid)
        .order_by(root.c.id)
        .limit(1)
    )
    name = conn.execute(query).scalar()
    if name is None:
        raise ConsumerHasNoAllocations(consumer_uuid)
    return name


def node_name(conn: Connection, ident: str) -> str:
    """The name of the provider whose uuid is ``ident``; any other text is a name already.

    Planners compare nodes by name, so a host given by uuid in one action and by
    name in another is one node (an identifier matching no provider stays as given).
    """
    rp = tables.resource_providers
    name = conn.execute(select(rp.c.name).where(rp.c.uuid == ident)).scalar()
    return name if name is not None else ident
