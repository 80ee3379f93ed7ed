"""``change_node_power_state`` and ``turn_host_to_acpi_s3_state``: a node that serves nothing.

A powered-off node must take no allocation, yet keep its inventories (nova
would report them again on power-on). So "off" raises every inventory's
``reserved`` to its ``total`` across the node's tree, remembering the old
values in ``powered_off_inventories``; "on" puts exactly those values back. Off
is refused while the tree holds any allocation. Each provider's generation is
bumped by compare-and-swap after it was read and before the allocation check,
so a scheduler claiming at the same time either is seen by the check or loses
its own swap and finds no capacity when it tries again.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.db import actionplan_tables, tables
from placement.effects import base, nodes
from placement.effects.builtin import BuiltinType
from placement.effects.races import run_again_on_race
from placement.objects import resource_provider as rp_obj

_SAVED = actionplan_tables.powered_off_inventories


def _saved(conn: Connection, tree: list[rp_obj.Provider]) -> list[Any]:
    return list(
        conn.execute(
            select(_SAVED).where(_SAVED.c.resource_provider_id.in_([p.id for p in tree]))
        ).all()
    )


def _holds_allocations(conn: Connection, tree: list[rp_obj.Provider]) -> bool:
    alloc = tables.allocations
    found = conn.execute(
        select(alloc.c.id).where(alloc.c.resource_provider_id.in_([p.id for p in tree])).limit(1)
    ).first()
    return found is not None


def _set_reserved(conn: Connection, provider: rp_obj.Provider, reserved: dict[int, int]) -> None:
    """Write ``reserved`` (class id → value) into the provider's inventories, bumping it."""
    inv = tables.inventories
    with run_again_on_race():
        rp_obj.increment_generation(conn, provider.id, provider.generation)
    for class_id, value in reserved.items():
        conn.execute(
            inv.update()
            .where(inv.c.resource_provider_id == provider.id, inv.c.resource_class_id == class_id)
            .values(reserved=value, updated_at=tables.utcnow())
        )


def power_off(conn: Connection, ident: str) -> base.Outcome:
    """Make the tree of node ``ident`` serve no candidates, remembering its reserved amounts."""
    node = nodes.find_node(conn, ident)
    if node is None:
        return base.failed_pre_condition(f"node {ident} not found")
    tree = nodes.tree_providers(conn, node)
    if _saved(conn, tree):
        return base.skipped(f"node {ident} is already off")
    inv = tables.inventories
    rows = conn.execute(
        select(inv.c.resource_provider_id, inv.c.resource_class_id, inv.c.total, inv.c.reserved)
        .where(inv.c.resource_provider_id.in_([p.id for p in tree]))
        .order_by(inv.c.resource_provider_id, inv.c.resource_class_id)
    ).all()
    if _holds_allocations(conn, tree):
        return base.failed_pre_condition(f"node {ident} still holds allocations")
    now = tables.utcnow()
    if rows:
        conn.execute(
            insert(_SAVED),
            [
                {
                    "resource_provider_id": row.resource_provider_id,
                    "resource_class_id": row.resource_class_id,
                    "reserved": row.reserved,
                    "created_at": now,
                }
                for row in rows
            ],
        )
    for provider in tree:
        _set_reserved(
            conn,
            provider,
            {r.resource_class_id: r.total for r in rows if r.resource_provider_id == provider.id},
        )
    return base.succeeded()


def power_on(conn: Connection, ident: str) -> base.Outcome:
    """Give the tree of node ``ident`` back the reserved amounts it had before power-off."""
    node = nodes.find_node(conn, ident)
    if node is None:
        return base.failed_pre_condition(f"node {ident} not found")
    tree = nodes.tree_providers(conn, node)
    saved = _saved(conn, tree)
    if not saved:
        return base.skipped(f"node {ident} is already on")
    for provider in tree:
        _set_reserved(
            conn,
            provider,
            {
                s.resource_class_id: s.reserved
                for s in saved
                if s.resource_provider_id == provider.id
            },
        )
    conn.execute(delete(_SAVED).where(_SAVED.c.resource_provider_id.in_([p.id for p in tree])))
    return base.succeeded()


def change_power_state(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Power node ``resource_id`` on or off."""
    switch = power_on if params["state"] == "on" else power_off
    return switch(conn, params["resource_id"])


def suspend(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Suspend node ``resource_id``: a power-off here."""
    return power_off(conn, params["resource_id"])


CHANGE_NODE_POWER_STATE = BuiltinType(names.CHANGE_NODE_POWER_STATE, change_power_state)
TURN_HOST_TO_ACPI_S3_STATE = BuiltinType(names.TURN_HOST_TO_ACPI_S3_STATE, suspend)
