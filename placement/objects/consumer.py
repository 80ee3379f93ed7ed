"""Consumers and the rows they point at: projects, users, consumer types.

A consumer row exists while the consumer holds allocations; allocation
writes create it and delete it again when its last allocation goes. Its
``generation`` is the consumer's compare-and-swap counter (microversion 1.28
clients send the value they last saw).

Projects, users and consumer types are name → id lookup rows created on
first use, each in a transaction of its own so they survive a failed
allocation write (as upstream's do) and a concurrent creator simply wins.
The consumer rows themselves are created inside the allocation transaction,
so a failed write leaves no consumer behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlalchemy
from sqlalchemy import Table, bindparam, delete, exists, insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement import metrics
from placement.db import tables
from placement.db.inserted import inserted_id
from placement.db.transaction import reader, writer
from placement.objects import exceptions

_CONSUMERS = tables.consumers

#: Name shown for consumers without a recorded type (microversion 1.38).
UNKNOWN_TYPE = "unknown"


@dataclass(frozen=True)
class Consumer:
    """A consumer row; ``project_id``/``user_id`` are internal ids."""

    id: int
    uuid: str
    project_id: int
    user_id: int
    generation: int
    consumer_type_id: int | None
    #: Inserted by the current transaction, already at its final generation.
    fresh: bool = False


# --- projects, users, consumer types ----------------------------------------


def _id_of(table: Table, column: str, param: str) -> sqlalchemy.ScalarSelect:
    return select(table.c.id).where(table.c[column] == bindparam(param)).scalar_subquery()


#: The three ids in one read (the usual case: all of them exist already).
#: The column's collation decides what "the same name" is, as upstream.
_OWNER_IDS = select(
    _id_of(tables.projects, "external_id", "project"),
    _id_of(tables.users, "external_id", "user"),
    _id_of(tables.consumer_types, "name", "type"),
)


def owner_ids(
    engine: Engine, project: str, user: str, consumer_type: str | None = None
) -> tuple[int, int, int | None]:
    """Internal ids of a project, a user and (if named) a consumer type,
    each created on first use."""
    with reader(engine) as conn:
        found = _read_owner_ids(conn, project, user, consumer_type)
    wanted = [(tables.projects, "external_id", project), (tables.users, "external_id", user)]
    if consumer_type is not None:
        wanted.append((tables.consumer_types, "name", consumer_type))
    # ``found`` has a third (unused) column when no type is named.
    ids = [
        found_id if found_id is not None else _create_id(engine, *row)
        for found_id, row in zip(found, wanted, strict=False)
    ]
    return ids[0], ids[1], ids[2] if consumer_type is not None else None


def existing_owner_ids(
    conn: Connection, project: str, user: str, consumer_type: str | None = None
) -> tuple[int, int, int | None] | None:
    """:func:`owner_ids` in the caller's transaction, or None when one of
    the rows does not exist yet (nothing is created)."""
    project_id, user_id, type_id = _read_owner_ids(conn, project, user, consumer_type)
    if project_id is None or user_id is None or (consumer_type is not None and type_id is None):
        return None
    return project_id, user_id, type_id if consumer_type is not None else None


def _read_owner_ids(
    conn: Connection, project: str, user: str, consumer_type: str | None
) -> sqlalchemy.Row:
    return conn.execute(_OWNER_IDS, {"project": project, "user": user, "type": consumer_type}).one()


def _create_id(engine: Engine, table: Table, column: str, value: str) -> int:
    """Insert ``table``'s row whose ``column`` is ``value`` unless someone
    just did; its id either way."""
    query = select(table.c.id).where(table.c[column] == value)
    try:
        with writer(engine) as conn:
            found = conn.execute(query).scalar()
            if found is None:
                found = inserted_id(
                    conn.execute(
                        insert(table).values({column: value, "created_at": tables.utcnow()})
                    )
                )
            return found
    except sqlalchemy.exc.IntegrityError:
        # Someone else created it between our look and our insert.
        with reader(engine) as conn:
            found = conn.execute(query).scalar()
        if found is None:
            raise
        return found


# --- consumer rows, inside the caller's transaction ----------------------------


def get_by_uuids(conn: Connection, uuids: Iterable[str]) -> dict[str, Consumer]:
    """The consumers among ``uuids`` that exist, keyed by uuid."""
    wanted = list(set(uuids))
    if not wanted:
        return {}
    c = _CONSUMERS
    rows = conn.execute(
        select(
            c.c.id, c.c.uuid, c.c.project_id, c.c.user_id, c.c.generation, c.c.consumer_type_id
        ).where(c.c.uuid.in_(wanted))
    )
    return {row.uuid: Consumer(**row._mapping) for row in rows}


_INSERT = insert(_CONSUMERS)


def create(
    conn: Connection,
    uuid: str,
    *,
    project_id: int,
    user_id: int,
    consumer_type_id: int | None,
    generation: int = 0,
) -> Consumer:
    """Insert a consumer (fresh: no other transaction can see it yet, so it
    may start at the generation the write will leave it with).

    One that starts claimed (generation above 0) also carries ``updated_at``,
    as upstream's insert followed by its generation bump leaves the row.

    A concurrent creator of the same uuid makes this raise
    ``sqlalchemy.exc.IntegrityError`` (at insert or at commit); the caller
    runs its transaction again and then finds the row.
    """
    new_id = inserted_id(
        conn.execute(
            _INSERT,
            {
                **_new_row(uuid, generation),
                "project_id": project_id,
                "user_id": user_id,
                "consumer_type_id": consumer_type_id,
            },
        )
    )
    return Consumer(new_id, uuid, project_id, user_id, generation, consumer_type_id, fresh=True)


def _new_row(uuid: str, generation: int) -> dict[str, object]:
    """The values of a new consumer's row besides its owners: one that
    starts claimed carries ``updated_at`` too (see :func:`create`)."""
    now = tables.utcnow()
    return {
        "uuid": uuid,
        "generation": generation,
        "created_at": now,
        "updated_at": now if generation else None,
    }


def _owned_insert(typed: bool) -> sqlalchemy.Insert:
    """:func:`create_owned`'s statement: the consumer's row selected from its
    owners' rows, so it inserts nothing when one of them is missing."""
    c = _CONSUMERS
    user = _id_of(tables.users, "external_id", "user")
    consumer_type = _id_of(tables.consumer_types, "name", "type") if typed else None
    source = select(
        bindparam("uuid", type_=c.c.uuid.type),
        tables.projects.c.id,
        user,
        bindparam("generation", type_=c.c.generation.type),
        sqlalchemy.null() if consumer_type is None else consumer_type,
        bindparam("created_at", type_=c.c.created_at.type),
        bindparam("updated_at", type_=c.c.updated_at.type),
    ).where(
        tables.projects.c.external_id == bindparam("project"),
        user.is_not(None),
        *([] if consumer_type is None else [consumer_type.is_not(None)]),
    )
    columns = [
        "uuid",
        "project_id",
        "user_id",
        "generation",
        "consumer_type_id",
        "created_at",
        "updated_at",
    ]
    return (
        insert(c)
        .from_select(columns, source)
        .returning(c.c.id, c.c.project_id, c.c.user_id, c.c.consumer_type_id)
    )


_OWNED_INSERTS = {typed: _owned_insert(typed) for typed in (False, True)}


def create_owned(
    conn: Connection,
    uuid: str,
    *,
    project: str,
    user: str,
    consumer_type: str | None,
    generation: int = 0,
) -> Consumer | None:
    """:func:`create` for owners named by their external ids, looked up by
    the insert itself (one statement where the usual claim took two).

    None, inserting nothing, when the project, the user or the named type
    has no row yet. Only where the database returns inserted rows
    (``conn.dialect.insert_returning``: SQLite, PostgreSQL, MariaDB 10.5+).
    """
    row = conn.execute(
        _OWNED_INSERTS[consumer_type is not None],
        {**_new_row(uuid, generation), "project": project, "user": user, "type": consumer_type},
    ).first()
    if row is None:
        return None
    return Consumer(
        row.id, uuid, row.project_id, row.user_id, generation, row.consumer_type_id, fresh=True
    )


def set_owner(
    conn: Connection,
    consumer: Consumer,
    *,
    project_id: int,
    user_id: int,
    consumer_type_id: int | None,
) -> None:
    """Record new project/user/type without touching the generation.

    ``consumer_type_id`` None keeps the current type. Guarded by the
    generation read earlier; if that moved, the later :func:`claim` fails.
    """
    values: dict = {}
    if (project_id, user_id) != (consumer.project_id, consumer.user_id):
        values.update(project_id=project_id, user_id=user_id)
    if consumer_type_id is not None and consumer_type_id != consumer.consumer_type_id:
        values["consumer_type_id"] = consumer_type_id
    if values:
        conn.execute(
            update(_CONSUMERS)
            .where(_CONSUMERS.c.id == consumer.id, _CONSUMERS.c.generation == consumer.generation)
            .values(updated_at=tables.utcnow(), **values)
        )


def claim(conn: Connection, consumer: Consumer) -> None:
    """Compare-and-swap the consumer's generation to +1, or :class:`ConcurrentUpdate`."""
    result = conn.execute(
        update(_CONSUMERS)
        .where(_CONSUMERS.c.id == consumer.id, _CONSUMERS.c.generation == consumer.generation)
        .values(generation=consumer.generation + 1)
    )
    if result.rowcount != 1:
        metrics.generation_conflict("consumer")
        raise exceptions.ConcurrentUpdate("consumer")


def delete_if_unused(conn: Connection, uuids: Iterable[str]) -> None:
    """Delete those of ``uuids`` that hold no allocation any more."""
    wanted = list(set(uuids))
    if not wanted:
        return
    alloc = tables.allocations
    conn.execute(
        delete(_CONSUMERS).where(
            _CONSUMERS.c.uuid.in_(wanted), ~exists().where(alloc.c.consumer_id == _CONSUMERS.c.uuid)
        )
    )
