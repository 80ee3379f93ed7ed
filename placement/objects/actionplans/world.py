"""Read the capacity snapshot the capacity strategies plan on, from our own tables.

Everything comes from one connection (the caller's transaction), so the snapshot
is as consistent as the caller's isolation level makes it; the applier checks
capacity again when it acts. Each consumer comes with its consumer type (None when
it has none), so strategies move only servers while usage counts everything, and
with its project and creation time, which ``zone_migration`` orders by. A node
knows whether it is powered off, which ``saving_energy`` reads.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import os_traits
from sqlalchemy import ColumnElement, Exists, func, select
from sqlalchemy.engine import Connection

from placement.actionplans.world import Consumer, Node, World
from placement.db import actionplan_tables, tables
from placement.objects import conditions

_RP = tables.resource_providers
#: Amounts per resource class, by root provider id.
_PerTree = dict[int, dict[str, int]]


def _powered_off(root_id: ColumnElement[int]) -> Exists:
    """Some provider of the tree of ``root_id`` has its inventories saved by a power-off
    (``placement/effects/power_state.py``)."""
    saved, member = actionplan_tables.powered_off_inventories, _RP.alias("member")
    return (
        select(saved.c.resource_provider_id)
        .join(member, member.c.id == saved.c.resource_provider_id)
        .where(member.c.root_provider_id == root_id)
        .exists()
    )


def read_world(conn: Connection) -> World:
    """Every provider tree whose root does not share via aggregate, in root id order."""
    roots = conn.execute(
        select(
            _RP.c.id,
            _RP.c.uuid,
            _RP.c.name,
            conditions.has_trait_named(_RP.c.id, os_traits.COMPUTE_STATUS_DISABLED),
            _powered_off(_RP.c.id),
        )
        .where(
            _RP.c.parent_provider_id.is_(None),
            ~conditions.has_trait_named(_RP.c.id, os_traits.MISC_SHARES_VIA_AGGREGATE),
        )
        .order_by(_RP.c.id)
    ).all()
    capacity, totals = _inventories(conn)
    holdings = _holdings(conn)
    return World(
        tuple(
            Node(
                uuid=uuid,
                name=name,
                capacity=capacity[root],
                usage=holdings.usage_of(root),
                disabled=bool(disabled),
                powered_off=bool(off),
                consumers=holdings.consumers_of(root),
                totals=totals[root],
            )
            for root, uuid, name, disabled, off in roots
        )
    )


def _inventories(conn: Connection) -> tuple[_PerTree, _PerTree]:
    """Each tree's capacity and its inventories' totals per resource class, by root
    provider id."""
    rc, inv = tables.resource_classes, tables.inventories
    capacity: _PerTree = defaultdict(dict)
    totals: _PerTree = defaultdict(dict)
    for root, name, total, reserved, ratio in conn.execute(
        select(
            _RP.c.root_provider_id, rc.c.name, inv.c.total, inv.c.reserved, inv.c.allocation_ratio
        )
        .join(_RP, _RP.c.id == inv.c.resource_provider_id)
        .join(rc, rc.c.id == inv.c.resource_class_id)
    ):
        capacity[root][name] = capacity[root].get(name, 0) + int(
            conditions.capacity(total, reserved, ratio)
        )
        totals[root][name] = totals[root].get(name, 0) + total
    return capacity, totals


@dataclass
class _Holdings:
    """What each consumer holds on each tree, each tree's usage, and each consumer's
    type, project and creation time."""

    held: dict[int, dict[str, dict[str, int]]] = field(default_factory=lambda: defaultdict(dict))
    facts: dict[str, tuple[str | None, str | None, datetime | None]] = field(default_factory=dict)

    def consumers_of(self, root: int) -> tuple[Consumer, ...]:
        return tuple(Consumer(c, amounts, *self.facts[c]) for c, amounts in self.held[root].items())

    def usage_of(self, root: int) -> dict[str, int]:
        """The tree's usage per class: what its consumers hold, summed."""
        usage: dict[str, int] = {}
        for amounts in self.held[root].values():
            for name, used in amounts.items():
                usage[name] = usage.get(name, 0) + used
        return usage


def _holdings(conn: Connection) -> _Holdings:
    """Allocations summed per tree, consumer and class, in allocation order."""
    rc, alloc = tables.resource_classes, tables.allocations
    consumers, types, projects = tables.consumers, tables.consumer_types, tables.projects
    found = _Holdings()
    for root, consumer, kind, project, created, name, used in conn.execute(
        select(
            _RP.c.root_provider_id,
            alloc.c.consumer_id,
            types.c.name,
            projects.c.external_id,
            consumers.c.created_at,
            rc.c.name,
            func.sum(alloc.c.used),
        )
        .join(_RP, _RP.c.id == alloc.c.resource_provider_id)
        .join(rc, rc.c.id == alloc.c.resource_class_id)
        .outerjoin(consumers, consumers.c.uuid == alloc.c.consumer_id)
        .outerjoin(types, types.c.id == consumers.c.consumer_type_id)
        .outerjoin(projects, projects.c.id == consumers.c.project_id)
        .group_by(
            _RP.c.root_provider_id,
            alloc.c.consumer_id,
            types.c.name,
            projects.c.external_id,
            consumers.c.created_at,
            rc.c.name,
        )
        .order_by(_RP.c.root_provider_id, func.min(alloc.c.id), rc.c.name)
    ):
        found.held[root].setdefault(consumer, {})[name] = int(used)
        found.facts[consumer] = (kind, project, created)
    return found
