"""``GET /v1/data_model``: the compute model as the strategies see it (doc/watcher-api.md §10.3).

Upstream's rows, one per server with its node's fields (``node_*``) and its own
(``server_*``), one per node without servers (node fields only), nodes and
servers by uuid. Here a node is a provider tree whose root does not share (the
strategies' :func:`~placement.objects.actionplans.world.read_world`), a server
each consumer holding resources in it. What Placement does not know is shown
as upstream's neutral value: servers have no name, state or flavor (their
amounts are their allocations), nodes are ``up``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.actionplans.world import Consumer, Node
from placement.db import tables
from placement.objects.actionplans.world import read_world

#: Node fields per resource class: (total, reserved, allocation ratio).
_CLASSES = {
    "VCPU": ("node_vcpus", "node_vcpu_reserved", "node_vcpu_ratio"),
    "MEMORY_MB": ("node_memory", "node_memory_mb_reserved", "node_memory_ratio"),
    "DISK_GB": ("node_disk", "node_disk_gb_reserved", "node_disk_ratio"),
}
_SERVER_AMOUNTS = {"VCPU": "server_vcpus", "MEMORY_MB": "server_memory", "DISK_GB": "server_disk"}


def compute_model(engine: Engine, extended: bool) -> list[dict[str, Any]]:
    """The rows of the compute model; ``extended`` (1.6) adds ``server_pinned_az`` and
    ``server_flavor_extra_specs``. Opens its own read transaction."""
    with db.reader(engine) as conn:
        world = read_world(conn)
        inventories = _inventories(conn)
    rows: list[dict[str, Any]] = []
    for node in sorted(world.nodes, key=lambda node: node.uuid):
        fields = _node(node, inventories[node.uuid])
        servers = sorted(node.consumers, key=lambda consumer: consumer.uuid)
        rows.extend({**fields, **_server(server, extended)} for server in servers)
        if not servers:
            rows.append(fields)
    return rows


def _inventories(conn: Connection) -> dict[str, dict[str, tuple[int, int, float]]]:
    """Per root uuid and class of :data:`_CLASSES`: total and reserved summed over the tree,
    the highest allocation ratio."""
    rp, root = tables.resource_providers, tables.resource_providers.alias("root")
    inv, rc = tables.inventories, tables.resource_classes
    query = (
        select(
            root.c.uuid,
            rc.c.name,
            func.sum(inv.c.total),
            func.sum(inv.c.reserved),
            func.max(inv.c.allocation_ratio),
        )
        .join(rp, rp.c.id == inv.c.resource_provider_id)
        .join(root, root.c.id == rp.c.root_provider_id)
        .join(rc, rc.c.id == inv.c.resource_class_id)
        .where(rc.c.name.in_(_CLASSES))
        .group_by(root.c.uuid, rc.c.name)
    )
    found: dict[str, dict[str, tuple[int, int, float]]] = defaultdict(dict)
    for uuid, name, total, reserved, ratio in conn.execute(query):
        found[uuid][name] = (int(total), int(reserved), float(ratio))
    return found


def _node(node: Node, inventories: dict[str, tuple[int, int, float]]) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "node_uuid": node.uuid,
        "node_hostname": node.name,
        "node_status": "disabled" if node.disabled else "enabled",
        "node_disabled_reason": None,
        "node_state": "up",
    }
    for name, keys in _CLASSES.items():
        fields.update(zip(keys, inventories.get(name, (0, 0, 1.0)), strict=True))
    return fields


def _server(server: Consumer, extended: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "server_uuid": server.uuid,
        "server_name": None,
        "server_state": "active",
        "server_watcher_exclude": False,
        "server_metadata": {},
        "server_project_id": None,
        "server_locked": False,
        **{key: server.amounts.get(name, 0) for name, key in _SERVER_AMOUNTS.items()},
    }
    if extended:
        fields.update(server_pinned_az=None, server_flavor_extra_specs={})
    return fields
