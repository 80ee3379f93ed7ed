"""Upstream's checks of a claim, in its order: inventory, constraints, capacity.

One read gives each (provider, class) the claim touches its inventory,
the usage by everyone and the usage by the claim's own consumers (which the
claim replaces); the checks are then plain Python over a claim's few items.
Over capacity is refused unless the change leaves an existing overcommit
no worse.
"""

from __future__ import annotations

import collections
import logging
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import bindparam, case, func, select
from sqlalchemy.engine import Connection

from placement.db import tables
from placement.objects import conditions, exceptions

LOG = logging.getLogger(__name__)

_ALLOC = tables.allocations

#: The parameters of :data:`_INVENTORIES_AND_USAGE` besides the consumers.
_PROVIDERS: sqlalchemy.BindParameter[int] = bindparam("providers", expanding=True)
_CLASSES: sqlalchemy.BindParameter[int] = bindparam("classes", expanding=True)


@dataclass(frozen=True)
class Item:
    """One (consumer, provider, class, amount) of the write; amount 0 = removal."""

    consumer: str
    provider_id: int
    provider_uuid: str
    class_id: int
    class_name: str
    amount: int


def check(conn: Connection, items: list[Item], consumers: set[str]) -> None:
    """Refuse ``items`` (held by ``consumers`` after the write) as upstream would."""
    if not items:
        return
    # A set built in item order iterates as upstream's did: same class list text.
    class_ids = set(i.class_id for i in items)
    inventory = _inventories_and_usage(conn, {i.provider_id for i in items}, class_ids, consumers)
    _require_inventory_on_each_provider(items, inventory, class_ids)
    requested: dict[tuple[int, int], int] = collections.defaultdict(int)
    for item in items:
        key = (item.provider_id, item.class_id)
        requested[key] += item.amount
        if item.amount:
            _check_item(item, inventory.get(key), requested[key])


def _require_inventory_on_each_provider(
    items: list[Item], inventory: dict[tuple[int, int], sqlalchemy.Row], class_ids: set[int]
) -> None:
    """Refuse a claim on a provider with none of its classes, naming them all."""
    with_inventory = {provider for provider, _ in inventory}
    missing = list(
        dict.fromkeys(i.provider_uuid for i in items if i.provider_id not in with_inventory)
    )
    if missing:
        class_names = {i.class_id: i.class_name for i in items}
        classes = ", ".join(class_names[c] for c in class_ids)
        raise exceptions.InvalidAllocation(
            f"Inventory for '{classes}' on resource provider '{', '.join(missing)}' invalid."
        )


def _check_item(item: Item, inv: sqlalchemy.Row | None, requested: int) -> None:
    """Refuse ``item`` without an inventory of its class, outside its
    min/max/step, or over capacity (``requested``: the claim's amount of
    that class on that provider so far)."""
    if inv is None:
        raise exceptions.InvalidAllocation(
            f"Inventory for '{item.class_name}' on resource provider "
            f"'{item.provider_uuid}' invalid."
        )
    if item.amount < inv.min_unit or item.amount > inv.max_unit or item.amount % inv.step_size:
        raise exceptions.InvalidAllocation(_refusal(item, "would violate inventory constraints"))
    before = None if inv.used is None else int(inv.used)
    used = (before or 0) - int(inv.ours or 0)
    capacity = conditions.capacity(inv.total, inv.reserved, inv.allocation_ratio)
    if capacity >= used + item.amount and capacity >= used + requested:
        return
    # Over capacity is fine only if it is no worse than before.
    if before is not None and used + requested <= before:
        return
    LOG.warning(
        "Over capacity for %s on resource provider %s. Needed: %s, Used: %s, Capacity: %s",
        item.class_name,
        item.provider_uuid,
        item.amount,
        used,
        capacity,
    )
    raise exceptions.InvalidAllocation(_refusal(item, "would exceed the capacity"))


def _refusal(item: Item, reason: str) -> str:
    return (
        f"Unable to create allocation for '{item.class_name}' on resource provider "
        f"'{item.provider_uuid}'. The requested amount {reason}."
    )


def _inventories_and_usage(
    conn: Connection, provider_ids: set[int], class_ids: set[int], consumers: set[str]
) -> dict[tuple[int, int], sqlalchemy.Row]:
    """(provider, class) → its inventory, with ``used`` (now, by everyone;
    None when nothing is allocated) and ``ours`` (by ``consumers``), in one read."""
    rows = conn.execute(
        _INVENTORIES_AND_USAGE,
        {"providers": list(provider_ids), "classes": list(class_ids), "consumers": list(consumers)},
    )
    return {(row.resource_provider_id, row.resource_class_id): row for row in rows}


def _usage_query() -> sqlalchemy.Subquery:
    """Per (provider, class) of the claim: the usage by everyone and by its consumers."""
    consumers: sqlalchemy.BindParameter[str] = bindparam("consumers", expanding=True)
    ours = case((_ALLOC.c.consumer_id.in_(consumers), _ALLOC.c.used), else_=0)
    return (
        select(
            _ALLOC.c.resource_provider_id,
            _ALLOC.c.resource_class_id,
            func.sum(_ALLOC.c.used).label("used"),
            func.sum(ours).label("ours"),
        )
        .where(
            _ALLOC.c.resource_provider_id.in_(_PROVIDERS), _ALLOC.c.resource_class_id.in_(_CLASSES)
        )
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
        .subquery()
    )


def _inventories_and_usage_query() -> sqlalchemy.Select:
    inv = tables.inventories
    usage = _usage_query()
    return (
        select(
            inv.c.resource_provider_id,
            inv.c.resource_class_id,
            inv.c.total,
            inv.c.reserved,
            inv.c.min_unit,
            inv.c.max_unit,
            inv.c.step_size,
            inv.c.allocation_ratio,
            usage.c.used,
            usage.c.ours,
        )
        .select_from(
            inv.outerjoin(
                usage,
                (usage.c.resource_provider_id == inv.c.resource_provider_id)
                & (usage.c.resource_class_id == inv.c.resource_class_id),
            )
        )
        .where(inv.c.resource_provider_id.in_(_PROVIDERS), inv.c.resource_class_id.in_(_CLASSES))
    )


_INVENTORIES_AND_USAGE = _inventories_and_usage_query()
