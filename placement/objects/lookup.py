"""Name lookups in the tables of named things (resource classes, traits).

Names are identifiers, so matching is exact (case and trailing blanks count)
on every backend, whatever the column's collation lets ``IN`` match.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import sqlalchemy
from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from placement.objects import exceptions

#: Names asked in one query: a body may list tens of thousands, more than a
#: statement may bind (SQLite allows 32,766 parameters, PostgreSQL 65,535).
_BATCH = 1000


@cache
def _by_name(table: sqlalchemy.Table) -> sqlalchemy.Select:
    """The read of ``table``'s rows named ``:names``, built once per table
    (SQLAlchemy then reuses its compiled form; building it per call costs
    more than running it)."""
    return select(table).where(table.c.name.in_(bindparam("names", expanding=True)))


def rows_by_name(
    conn: Connection,
    table: sqlalchemy.Table,
    names: Iterable[str],
    *,
    message: str,
    error: type[exceptions.NameNotFound],
) -> dict[str, sqlalchemy.Row]:
    """The rows of ``table`` called ``names``, keyed by name in the order given.

    Unknown names raise ``error`` with ``message.format(...)`` and the unknown
    names in the order given: ``{names}`` is them joined by ``", "``, ``{name}``
    the first of them (for upstream texts that name only one).
    """
    wanted = list(dict.fromkeys(names))
    found: dict[str, sqlalchemy.Row] = {}
    for start in range(0, len(wanted), _BATCH):
        batch = wanted[start : start + _BATCH]
        found.update((row.name, row) for row in conn.execute(_by_name(table), {"names": batch}))
    missing = [name for name in wanted if name not in found]
    if missing:
        raise error(message.format(names=", ".join(missing), name=missing[0]), tuple(missing))
    return {name: found[name] for name in wanted}


def ids_by_name(
    conn: Connection,
    table: sqlalchemy.Table,
    names: Iterable[str],
    *,
    message: str,
    error: type[exceptions.NameNotFound],
) -> dict[str, int]:
    """:func:`rows_by_name`, keeping only each row's id."""
    rows = rows_by_name(conn, table, names, message=message, error=error)
    return {name: row.id for name, row in rows.items()}
