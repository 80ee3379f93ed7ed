"""Resource classes: lookups by name, listing, and custom class life cycle.

Standard classes (ids below :data:`MIN_CUSTOM_ID`) are written only by the
start-up sync in ``placement.db.standard``; this module creates, renames and
deletes custom ones. Custom ids are assigned here, not by the database:
``max(id) + 1`` but at least :data:`MIN_CUSTOM_ID`. Two writers can pick the
same id at the same time; the loser's insert hits the primary key and the
whole transaction is run again with a fresh maximum.

Name comparisons are exact (case and trailing blanks count) on every backend,
whatever the column's collation says, because names are identifiers.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable
from dataclasses import dataclass

import os_resource_classes
import sqlalchemy
from sqlalchemy import delete, exists, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement.db import tables
from placement.db.transaction import is_retryable_db_error, reader, writer
from placement.objects import exceptions, lookup

LOG = logging.getLogger(__name__)

#: Ids below this belong to standard classes.
MIN_CUSTOM_ID = 10000

#: How many times a create is tried when concurrent creates take its id.
CREATE_ATTEMPTS = 100

_RC = tables.resource_classes

#: Standard ids never change: each is the name's position in
#: ``os_resource_classes.STANDARDS``, and the start-up sync
#: (``placement.db.standard``) refuses to run on a database where it is not.
#: So these names need no query.
_STANDARD_IDS = {name: index for index, name in enumerate(os_resource_classes.STANDARDS)}

NOT_FOUND_MESSAGE = "No such resource class {names}."


@dataclass(frozen=True)
class ResourceClass:
    id: int
    name: str
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None

    @property
    def is_standard(self) -> bool:
        return self.id < MIN_CUSTOM_ID

    @property
    def last_modified(self) -> datetime.datetime | None:
        return self.updated_at or self.created_at


_COLUMNS = (_RC.c.id, _RC.c.name, _RC.c.created_at, _RC.c.updated_at)


# --- lookups other areas reuse -------------------------------------------------


def resource_class_ids(
    conn: Connection,
    names: Iterable[str],
    *,
    message: str = NOT_FOUND_MESSAGE,
) -> dict[str, int]:
    """Map each of ``names`` to its id; unknown ones raise
    :class:`~placement.objects.exceptions.ResourceClassNotFound` with ``message``
    (placeholders as in :func:`placement.objects.lookup.rows_by_name`).

    Only custom names are looked up in the database (see ``_STANDARD_IDS``).
    """
    wanted = list(dict.fromkeys(names))
    custom = lookup.ids_by_name(
        conn,
        _RC,
        [name for name in wanted if name not in _STANDARD_IDS],
        message=message,
        error=exceptions.ResourceClassNotFound,
    )
    return {name: _STANDARD_IDS[name] if name in _STANDARD_IDS else custom[name] for name in wanted}


def resource_class_id(
    conn: Connection,
    name: str,
    *,
    message: str = NOT_FOUND_MESSAGE,
) -> int:
    """The id of the class called ``name``; unknown → ``ResourceClassNotFound(message)``."""
    return resource_class_ids(conn, [name], message=message)[name]


def _find(conn: Connection, name: str) -> ResourceClass | None:
    row = conn.execute(select(*_COLUMNS).where(_RC.c.name == name)).first()
    if row is None or row.name != name:
        return None
    return ResourceClass(*row)


def _get(conn: Connection, name: str) -> ResourceClass:
    found = _find(conn, name)
    if found is None:
        raise exceptions.ResourceClassNotFound(NOT_FOUND_MESSAGE.format(names=name), (name,))
    return found


# --- what the API does ---------------------------------------------------------


def list_all(engine: Engine) -> list[ResourceClass]:
    """Every class, standard ones first (ordered by id)."""
    with reader(engine) as conn:
        return [ResourceClass(*row) for row in conn.execute(select(*_COLUMNS).order_by(_RC.c.id))]


def get(engine: Engine, name: str) -> ResourceClass:
    """The class called ``name``; ``ResourceClassNotFound`` ``No such resource class <name>.``"""
    with reader(engine) as conn:
        return _get(conn, name)


def create(engine: Engine, name: str) -> ResourceClass:
    """Create custom class ``name``; :class:`AlreadyExists` if it exists already."""
    created, rc = ensure(engine, name)
    if not created:
        raise exceptions.AlreadyExists(f"Conflicting resource class already exists: {name}", name)
    return rc


def ensure(engine: Engine, name: str) -> tuple[bool, ResourceClass]:
    """Create custom class ``name`` unless it exists: ``(created, class)``.

    The id is the next custom one; a lost race for it is retried up to
    :data:`CREATE_ATTEMPTS` times, then :class:`TooManyRetries`.
    """
    for _ in range(CREATE_ATTEMPTS):
        try:
            with writer(engine) as conn:
                existing = _find(conn, name)
                if existing is not None:
                    return False, existing
                return True, _insert_next(conn, name)
        except sqlalchemy.exc.IntegrityError:
            # Either someone took our id (try again) or our name (it exists).
            with reader(engine) as conn:
                existing = _find(conn, name)
            if existing is not None:
                return False, existing
        except sqlalchemy.exc.DBAPIError as exc:
            if not is_retryable_db_error(exc):
                raise
    LOG.warning("Exceeded retry limit on id generation while creating resource class %s", name)
    raise exceptions.TooManyRetries(
        "Max retries of DB transaction exceeded attempting to create resource "
        f"class: {name}, please try again."
    )


def _insert_next(conn: Connection, name: str) -> ResourceClass:
    highest = conn.execute(select(func.max(_RC.c.id))).scalar()
    new_id = max(MIN_CUSTOM_ID, (highest or 0) + 1)
    now = tables.utcnow()
    conn.execute(insert(_RC).values(id=new_id, name=name, created_at=now))
    return ResourceClass(new_id, name, now, None)


def rename(engine: Engine, name: str, new_name: str) -> ResourceClass:
    """Rename custom class ``name`` (its id, so inventories follow it)."""
    try:
        with writer(engine) as conn:
            rc = _get(conn, name)
            if rc.is_standard:
                raise exceptions.StandardName(f"Cannot update standard resource class {name}", name)
            if new_name == name:
                return rc
            now = tables.utcnow()
            conn.execute(update(_RC).where(_RC.c.id == rc.id).values(name=new_name, updated_at=now))
            return ResourceClass(rc.id, new_name, rc.created_at, now)
    except sqlalchemy.exc.IntegrityError:
        raise exceptions.AlreadyExists(
            f"Resource class already exists: {new_name}", new_name
        ) from None


def delete_custom(engine: Engine, name: str) -> None:
    """Delete custom class ``name``; refused for standard or inventoried ones."""
    with writer(engine) as conn:
        rc = _get(conn, name)
        if rc.is_standard:
            raise exceptions.StandardName(
                f"Error in delete resource class: Cannot delete standard resource class {name}.",
                name,
            )
        in_use = conn.execute(
            select(exists().where(tables.inventories.c.resource_class_id == rc.id))
        ).scalar()
        if in_use:
            raise exceptions.InUse(
                f"Error in delete resource class: Cannot delete resource class {name}. "
                "Class is in use in inventory."
            )
        conn.execute(delete(_RC).where(_RC.c.id == rc.id))
