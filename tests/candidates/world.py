"""A small in-memory model of providers, written straight into a database.

The property tests generate a :class:`World`, write it with :func:`write`,
ask the engine, and compare with :mod:`tests.candidates.reference`, which
reads the same :class:`World` without any SQL. :func:`erase` removes it so
the next example starts from an empty provider table.

Rows go in under the ids of the model, so the next world reuses the last
one's ids and uuids: each write gives its providers a generation no earlier
write in this process gave, as the API's writes would by bumping it (the
engine keeps what it read of a provider while its generation stands, see
``placement/candidates/known.py``).
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field

import sqlalchemy
from sqlalchemy import delete, insert, select, update

from placement.db import tables, writer

SHARING = "MISC_SHARES_VIA_AGGREGATE"
CUSTOM_CLASS = "CUSTOM_WIDGET"

#: The generation of the next :func:`write`'s providers.
_GENERATIONS = itertools.count(1)


@dataclass(frozen=True)
class Inventory:
    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = 2147483647
    step_size: int = 1
    allocation_ratio: float = 1.0

    @property
    def capacity(self) -> int:
        return int((self.total - self.reserved) * self.allocation_ratio)


@dataclass
class Provider:
    id: int
    parent: int | None = None
    inventories: dict[str, Inventory] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)
    traits: set[str] = field(default_factory=set)
    #: Aggregate uuids.
    aggregates: set[str] = field(default_factory=set)

    @property
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.id))


@dataclass
class World:
    providers: dict[int, Provider] = field(default_factory=dict)

    def add(self, parent: int | None = None, **kwargs) -> Provider:
        provider = Provider(len(self.providers) + 1, parent, **kwargs)
        self.providers[provider.id] = provider
        return provider

    def root(self, provider: int) -> int:
        while (parent := self.providers[provider].parent) is not None:
            provider = parent
        return provider

    def ancestors(self, provider: int) -> set[int]:
        """``provider`` and everything above it."""
        line = {provider}
        while (provider := self.providers[provider].parent) is not None:
            line.add(provider)
        return line

    def by_uuid(self, value: str) -> Provider:
        return self.providers[uuid.UUID(value).int]


def aggregate_uuid(number: int) -> str:
    return str(uuid.UUID(int=(1 << 64) + number))


def write(engine: sqlalchemy.Engine, world: World) -> None:
    """Insert the world's rows (parents before children, ids as in the model)."""
    generation = next(_GENERATIONS)
    with writer(engine) as conn:
        classes = _ids(conn, tables.resource_classes)
        if CUSTOM_CLASS not in classes:
            conn.execute(insert(tables.resource_classes).values(id=10000, name=CUSTOM_CLASS))
            classes[CUSTOM_CLASS] = 10000
        traits = _ids(conn, tables.traits)
        aggregates = _ids(conn, tables.placement_aggregates, key="uuid")
        for provider in world.providers.values():
            conn.execute(
                insert(tables.resource_providers).values(
                    id=provider.id,
                    uuid=provider.uuid,
                    name=provider.uuid,
                    generation=generation,
                    parent_provider_id=provider.parent,
                    root_provider_id=world.root(provider.id),
                )
            )
            for name, inv in provider.inventories.items():
                conn.execute(
                    insert(tables.inventories).values(
                        resource_provider_id=provider.id,
                        resource_class_id=classes[name],
                        total=inv.total,
                        reserved=inv.reserved,
                        min_unit=inv.min_unit,
                        max_unit=inv.max_unit,
                        step_size=inv.step_size,
                        allocation_ratio=inv.allocation_ratio,
                    )
                )
            for name, used in provider.used.items():
                conn.execute(
                    insert(tables.allocations).values(
                        resource_provider_id=provider.id,
                        resource_class_id=classes[name],
                        consumer_id=str(uuid.uuid4()),
                        used=used,
                    )
                )
            for name in provider.traits:
                conn.execute(
                    insert(tables.resource_provider_traits).values(
                        resource_provider_id=provider.id, trait_id=traits[name]
                    )
                )
            for agg_uuid in provider.aggregates:
                if agg_uuid not in aggregates:
                    aggregates[agg_uuid] = conn.execute(
                        insert(tables.placement_aggregates).values(uuid=agg_uuid)
                    ).inserted_primary_key[0]
                conn.execute(
                    insert(tables.resource_provider_aggregates).values(
                        resource_provider_id=provider.id, aggregate_id=aggregates[agg_uuid]
                    )
                )


def erase(engine: sqlalchemy.Engine, world: World) -> None:
    """Delete what :func:`write` inserted (tree links first: MySQL checks
    foreign keys row by row, even a root's reference to itself)."""
    rp = tables.resource_providers
    with writer(engine) as conn:
        for table in (
            tables.allocations,
            tables.inventories,
            tables.resource_provider_traits,
            tables.resource_provider_aggregates,
        ):
            conn.execute(delete(table))
        conn.execute(update(rp).values(root_provider_id=None, parent_provider_id=None))
        conn.execute(delete(rp))


def _ids(conn, table, key: str = "name") -> dict[str, int]:
    return dict(conn.execute(select(table.c[key], table.c.id)).all())
