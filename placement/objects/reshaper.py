"""The reshaper: replace inventories and allocations together, atomically.

Used when inventory moves between providers of a tree (say VGPU from a
compute node to a new child) while consumers hold it: the inventories of the
listed providers and the allocations of the listed consumers are replaced in
ONE transaction, so nobody ever sees the half-moved state.

The steps are upstream's, and so are the generation bumps they cause:

1. every provider in ``inventories`` exists and has the generation the
   caller gave;
2. consumers are checked and created as for ``POST /allocations``;
3. every provider the allocations name exists;
4. each provider with a non-empty new inventory gets an *interim* inventory:
   its old records plus the new ones (new wins), so allocations can land on
   new classes while old ones are not yet removed (+1 generation);
5. the allocations are replaced, checked against the interim inventory
   (+1 for each provider they touch);
6. each provider gets its final inventory exactly as given (+1); removing a
   class that still has allocations is refused.

Any failure rolls everything back. Like allocation writes, the whole
transaction is retried when a provider generation moved under it; on the
retry step 1 then reports the caller's stale generation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection, Engine

from placement.db import tables
from placement.objects import claim, claim_consumers, claim_providers, exceptions
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj


@dataclass(frozen=True)
class InventoryChange:
    """The inventory one provider should end with, and its expected generation."""

    generation: int
    records: Mapping[str, Mapping[str, Any]]


def reshape(
    engine: Engine,
    inventories: Mapping[str, InventoryChange],
    writes: list[claim_consumers.ConsumerWrite],
    *,
    attempts: int,
) -> None:
    """Replace ``inventories`` (by provider uuid) and ``writes`` in one transaction."""
    owners = claim_consumers.resolve_owners(engine, writes)
    claim.retry_on_conflict(
        engine, lambda conn: _reshape(conn, inventories, writes, owners), attempts=attempts
    )


def _reshape(
    conn: Connection,
    inventories: Mapping[str, InventoryChange],
    writes: list[claim_consumers.ConsumerWrite],
    owners: dict[str, claim_consumers.Owner],
) -> None:
    # Lock everything this reshape touches up front, in one id order.
    claim_providers.lock_providers(
        conn,
        tables.resource_providers.c.uuid.in_(
            list(inventories) + [rp for w in writes for rp in w.allocations]
        ),
    )
    reshaped = _reshaped_providers(conn, inventories)
    consumers = claim_consumers.prepare_consumers(conn, writes, owners)
    providers: dict[str, claim_providers.LockedProvider | rp_obj.Provider] = dict(
        claim_providers.named_providers(conn, writes)
    )
    claim.resource_class_ids(conn, [rc for change in inventories.values() for rc in change.records])

    for uuid, change in inventories.items():
        if change.records:
            provider = reshaped[uuid]
            interim: dict[str, Mapping[str, Any]] = {
                rc: inv.record for rc, inv in inv_obj.get_inventories(conn, provider.id).items()
            }
            interim.update(change.records)
            reshaped[uuid] = _replace(conn, provider, interim)

    providers.update(reshaped)
    bumped = claim.apply(conn, writes, owners, consumers, providers)

    for uuid, change in inventories.items():
        provider = reshaped[uuid]
        if uuid in bumped:
            provider = dataclasses.replace(provider, generation=bumped[uuid])
        _replace(conn, provider, change.records)


def _reshaped_providers(
    conn: Connection, inventories: Mapping[str, InventoryChange]
) -> dict[str, rp_obj.Provider]:
    """The providers whose inventory changes, checked against the given generations."""
    found = rp_obj.get_by_uuids(conn, inventories)
    for uuid, change in inventories.items():
        provider = found.get(uuid)
        if provider is None:
            raise exceptions.ProviderNotFound(
                f"Resource provider {uuid} in inventories not found: "
                f"No resource provider with uuid {uuid} found",
                uuid,
            )
        if provider.generation != change.generation:
            raise exceptions.StaleGeneration(
                f"resource provider generation conflict for provider {uuid}: "
                f"actual: {provider.generation}, given: {change.generation}"
            )
    return {uuid: found[uuid] for uuid in inventories}


def _replace(
    conn: Connection, provider: rp_obj.Provider, records: Mapping[str, Mapping[str, Any]]
) -> rp_obj.Provider:
    """Write ``records`` as the provider's inventory (no capacity check, as upstream)."""
    generation = inv_obj.replace_inventories(conn, provider, records, check_capacity=False)
    return dataclasses.replace(provider, generation=generation)
