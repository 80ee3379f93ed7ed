"""How a path identifier names a row: integer id, uuid or name (doc/watcher-api.md §2.1).

The catalog's names (goals, strategies, scoring engines) are found whatever their case, as upstream
finds them on MySQL, its usual database, whose default collation ignores case:
watcher-tempest-plugin asks for goal ``DUMMY``. Names people choose (audits,
audit templates) are matched exactly.
"""

from __future__ import annotations

import uuid

from sqlalchemy import ColumnElement, FromClause, Table, false, func

from placement.db import actionplan_tables as t

#: The tables whose names are the catalog's own (all lower case): matched ignoring case.
_CATALOG: frozenset[Table] = frozenset({t.goals, t.strategies, t.scoring_engines})

#: The range of an ``Integer`` id column (32-bit signed on MySQL and PostgreSQL).
_ID_RANGE = range(-(2**31), 2**31)


def is_int_like(value: str) -> bool:
    """True for text that is exactly an integer's decimal form (``"7"``, not ``"07"``)."""
    try:
        return str(int(value)) == value
    except ValueError:
        return False


def canonical_uuid(value: str) -> str | None:
    """The stored (lower-case, hyphenated) form of a uuid-like text, else None.

    Like upstream, the 32-digit form without hyphens and upper case are accepted.
    """
    try:
        parsed = uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        return None
    if parsed.hex != value.replace("-", "").lower():
        return None  # braces, "urn:uuid:" and the like
    return str(parsed)


def by_ident(table: FromClause, ident: str) -> ColumnElement[bool]:
    """The condition selecting ``ident`` in ``table``: id, then uuid, then name."""
    if is_int_like(ident):
        # A number no id column can hold matches nothing (and must not reach the driver).
        return table.c.id == int(ident) if int(ident) in _ID_RANGE else false()
    return by_uuid_or_name(table, ident)


def by_uuid_or_name(table: FromClause, ident: str) -> ColumnElement[bool]:
    """The condition for a filter value that is a uuid or a name (never an id)."""
    as_uuid = canonical_uuid(ident)
    if as_uuid is not None:
        return table.c.uuid == as_uuid
    if getattr(table, "element", table) in _CATALOG:  # the table itself or an alias of it
        return func.lower(table.c.name) == ident.lower()
    return table.c.name == ident
