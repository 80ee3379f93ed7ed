"""Inventories: what a provider offers of each resource class.

A record is a plain dict with :data:`FIELDS`; :func:`with_defaults` fills
in what a request left out, keeping the request's JSON types so a write can
echo them back exactly (``allocation_ratio: 16`` echoes ``16``).

Every change bumps the provider generation with the compare-and-swap of
:func:`placement.objects.resource_provider.increment_generation`, taken
*before* the inventory rows are touched so concurrent writers of one
provider queue on its row and the losers fail cleanly.

:func:`replace_inventories` works inside a caller's transaction: the
reshaper composes it with allocation writes.
"""

from __future__ import annotations

import datetime
import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement import db
from placement.db import tables
from placement.objects import conditions, exceptions, resource_class
from placement.objects import resource_provider as rp_obj

LOG = logging.getLogger(__name__)

MAX_INT = 2147483647
FIELDS = ("total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio")
DEFAULTS: dict[str, Any] = {
    "reserved": 0,
    "min_unit": 1,
    "max_unit": MAX_INT,
    "step_size": 1,
    "allocation_ratio": 1.0,
}

_INV = tables.inventories
_RC = tables.resource_classes


@dataclass(frozen=True)
class Inventory:
    """One stored inventory row, by class name."""

    resource_class: str
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None

    @property
    def record(self) -> dict[str, Any]:
        return {field: getattr(self, field) for field in FIELDS}

    @property
    def last_modified(self) -> datetime.datetime | None:
        return self.updated_at or self.created_at


def with_defaults(record: Mapping[str, Any]) -> dict[str, Any]:
    """The six fields of ``record`` with defaults for the missing ones.

    Other keys (``resource_provider_generation``, ``resource_class``) are dropped.
    """
    return {field: record.get(field, DEFAULTS.get(field)) for field in FIELDS}


def _capacity(record: Mapping[str, Any]) -> int:
    """The record's capacity in whole units."""
    return int(conditions.capacity(record["total"], record["reserved"], record["allocation_ratio"]))


def validate_capacity(
    provider_uuid: str, records: Mapping[str, Mapping[str, Any]], *, reserved_may_equal_total: bool
) -> None:
    """:class:`InvalidCapacity` unless each record leaves capacity (``> 0``, ``>= 0`` from 1.26).

    A capacity beyond any float (an ``allocation_ratio`` near ±1e308 times the
    units) leaves none either: no allocation could be checked against it.
    """
    for rc, record in records.items():
        full = with_defaults(record)
        exact = conditions.capacity(full["total"], full["reserved"], full["allocation_ratio"])
        cap = int(exact) if math.isfinite(exact) else -1
        if cap < 0 or (cap == 0 and not reserved_may_equal_total):
            relation = "greater than" if reserved_may_equal_total else "greater than or equal to"
            raise exceptions.InvalidCapacity(rc, provider_uuid, relation)


# --- reads ---------------------------------------------------------------------


def get_inventories(conn: Connection, provider_id: int) -> dict[str, Inventory]:
    """The provider's inventories keyed by class name, in class id order."""
    rows = conn.execute(
        select(
            _RC.c.name.label("resource_class"),
            *(_INV.c[f] for f in FIELDS),
            _INV.c.created_at,
            _INV.c.updated_at,
        )
        .join(_RC, _RC.c.id == _INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id == provider_id)
        .order_by(_INV.c.resource_class_id)
    )
    return {row.resource_class: Inventory(**row._mapping) for row in rows}


def list_for_provider(engine: Engine, provider: rp_obj.Provider) -> dict[str, Inventory]:
    with db.reader(engine) as conn:
        return get_inventories(conn, provider.id)


# --- replacing the whole set -----------------------------------------------------


def replace_inventories(
    conn: Connection,
    provider: rp_obj.Provider,
    records: Mapping[str, Mapping[str, Any]],
    *,
    check_capacity: bool,
    reserved_may_equal_total: bool = True,
) -> int:
    """Make ``records`` (class name → record) the provider's whole inventory.

    Runs in the caller's transaction. ``provider.generation`` is the
    generation the caller expects; it is bumped by one (always, even when
    nothing changes) and the new value returned. Missing record fields get
    :data:`DEFAULTS`. Raises, in this order: :class:`InvalidCapacity` (only
    with ``check_capacity``; the reshaper skips it), :class:`ResourceClassNotFound`
    (``No such resource class X.``), :class:`ConcurrentUpdate`,
    :class:`InventoryInUse` when a removed class has allocations. Shrinking
    below current usage is allowed (logged).
    """
    if check_capacity:
        validate_capacity(provider.uuid, records, reserved_may_equal_total=reserved_may_equal_total)
    class_ids = resource_class.resource_class_ids(conn, records)
    generation = rp_obj.increment_generation(conn, provider.id, provider.generation)
    existing = dict(
        conn.execute(
            select(_INV.c.resource_class_id, _INV.c.id).where(
                _INV.c.resource_provider_id == provider.id
            )
        ).all()
    )
    wanted = {class_ids[rc]: with_defaults(record) for rc, record in records.items()}
    _delete_unused(conn, provider, set(existing) - set(wanted))
    for class_id, record in wanted.items():
        if class_id in existing:
            conn.execute(update(_INV).where(_INV.c.id == existing[class_id]).values(**record))
        else:
            conn.execute(
                insert(_INV).values(
                    resource_provider_id=provider.id, resource_class_id=class_id, **record
                )
            )
    _warn_over_capacity(conn, provider, wanted)
    return generation


def set_inventories(
    engine: Engine,
    provider: rp_obj.Provider,
    records: Mapping[str, Mapping[str, Any]],
    *,
    reserved_may_equal_total: bool = True,
) -> int:
    """:func:`replace_inventories` with the capacity check, in its own transaction."""
    return db.run_in_transaction(
        engine,
        lambda conn: replace_inventories(
            conn,
            provider,
            records,
            check_capacity=True,
            reserved_may_equal_total=reserved_may_equal_total,
        ),
        write=True,
    )


def delete_all(engine: Engine, provider: rp_obj.Provider) -> int:
    """Remove every inventory (bumping the generation even if there was none)."""
    return db.run_in_transaction(
        engine,
        lambda conn: replace_inventories(conn, provider, {}, check_capacity=False),
        write=True,
    )


def _delete_unused(conn: Connection, provider: rp_obj.Provider, class_ids: set[int]) -> None:
    """Delete these classes' rows, refusing (:class:`InventoryInUse`) if allocated."""
    if not class_ids:
        return
    alloc = tables.allocations
    in_use = (
        conn.execute(
            select(_RC.c.name)
            .where(
                _RC.c.id.in_(
                    select(alloc.c.resource_class_id).where(
                        alloc.c.resource_provider_id == provider.id,
                        alloc.c.resource_class_id.in_(class_ids),
                    )
                )
            )
            .order_by(_RC.c.id)
        )
        .scalars()
        .all()
    )
    if in_use:
        raise exceptions.InventoryInUse(tuple(in_use), provider.uuid)
    conn.execute(
        delete(_INV).where(
            _INV.c.resource_provider_id == provider.id, _INV.c.resource_class_id.in_(class_ids)
        )
    )


def _warn_over_capacity(
    conn: Connection, provider: rp_obj.Provider, records: Mapping[int, Mapping[str, Any]]
) -> None:
    if not records:
        return
    alloc = tables.allocations
    usage = dict(
        conn.execute(
            select(alloc.c.resource_class_id, func.sum(alloc.c.used))
            .where(
                alloc.c.resource_provider_id == provider.id,
                alloc.c.resource_class_id.in_(list(records)),
            )
            .group_by(alloc.c.resource_class_id)
        ).all()
    )
    for class_id, used in usage.items():
        if used > _capacity(records[class_id]):
            LOG.warning(
                "Resource provider %s is now over-capacity for resource class id %s",
                provider.uuid,
                class_id,
            )


# --- one class at a time -----------------------------------------------------------


#: A one-class write's statement: (connection, provider, class name, class id,
#: record with defaults).
_Statement = Callable[[Connection, rp_obj.Provider, str, int, dict[str, Any]], None]


class OneClassWrite:
    """Adding or replacing one class's inventory: check the record's capacity,
    then in one transaction resolve the class, claim the provider's generation
    and run the statement. Calling it returns the new generation.

    Raises :class:`InvalidCapacity`, :class:`ResourceClassNotFound`,
    :class:`ConcurrentUpdate`, and what the statement raises.
    """

    def __init__(self, statement: _Statement) -> None:
        self.statement = statement
        self.__doc__ = statement.__doc__

    def __call__(
        self,
        engine: Engine,
        provider: rp_obj.Provider,
        rc: str,
        record: Mapping[str, Any],
        *,
        reserved_may_equal_total: bool,
    ) -> int:
        validate_capacity(
            provider.uuid, {rc: record}, reserved_may_equal_total=reserved_may_equal_total
        )

        def run(conn: Connection) -> int:
            class_id = resource_class.resource_class_id(conn, rc)
            generation = rp_obj.increment_generation(conn, provider.id, provider.generation)
            self.statement(conn, provider, rc, class_id, with_defaults(record))
            return generation

        try:
            return db.run_in_transaction(engine, run, write=True)
        except sqlalchemy.exc.IntegrityError:  # only an insert racing another one
            raise exceptions.InventoryExists(rc, provider.uuid) from None


def _insert_new(
    conn: Connection, provider: rp_obj.Provider, rc: str, class_id: int, full: dict[str, Any]
) -> None:
    """Add inventory of a class the provider has none of (else :class:`InventoryExists`)."""
    if conn.execute(
        select(_INV.c.id).where(
            _INV.c.resource_provider_id == provider.id, _INV.c.resource_class_id == class_id
        )
    ).first():
        raise exceptions.InventoryExists(rc, provider.uuid)
    conn.execute(
        insert(_INV).values(resource_provider_id=provider.id, resource_class_id=class_id, **full)
    )


def _replace_existing(
    conn: Connection, provider: rp_obj.Provider, rc: str, class_id: int, full: dict[str, Any]
) -> None:
    """Replace the record of a class the provider has (else :class:`NoInventoryOfClass`)."""
    result = conn.execute(
        update(_INV)
        .where(_INV.c.resource_provider_id == provider.id, _INV.c.resource_class_id == class_id)
        .values(**full)
    )
    if result.rowcount != 1:
        raise exceptions.NoInventoryOfClass(f"No inventory of class {rc} found.", rc)
    _warn_over_capacity(conn, provider, {class_id: full})


add_inventory = OneClassWrite(_insert_new)
update_inventory = OneClassWrite(_replace_existing)


def delete_inventory(engine: Engine, provider: rp_obj.Provider, rc: str) -> int:
    """Remove one class's inventory; returns the new generation.

    Raises :class:`ResourceClassNotFound` / :class:`NoInventoryOfClass`,
    :class:`ConcurrentUpdate`, :class:`InventoryInUse`.
    """

    def run(conn: Connection) -> int:
        class_id = resource_class.resource_class_id(conn, rc)
        row = conn.execute(
            select(_INV.c.id).where(
                _INV.c.resource_provider_id == provider.id, _INV.c.resource_class_id == class_id
            )
        ).first()
        if row is None:
            raise exceptions.NoInventoryOfClass(f"No inventory of class {rc} found for delete", rc)
        generation = rp_obj.increment_generation(conn, provider.id, provider.generation)
        _delete_unused(conn, provider, {class_id})
        return generation

    return db.run_in_transaction(engine, run, write=True)
