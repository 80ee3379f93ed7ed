"""The primary key the database gave the row an ``INSERT`` just wrote."""

from __future__ import annotations

from sqlalchemy.engine import CursorResult


def inserted_id(result: CursorResult) -> int:
    """The new row's integer id (SQLAlchemy types the key as optional: it is
    absent only for statements that inserted nothing, which is a bug here)."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the INSERT wrote no row")
    return int(key[0])
