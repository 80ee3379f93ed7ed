"""One page of a list: limit, marker, sort key and direction, as Watcher's API pages.

Rows are ordered by the sort key, then by id, so every order is total and a
marker (the uuid of the last row of the previous page) says exactly where the
next page starts. NULLs sort first ascending and last descending on every
backend (PostgreSQL's own default is the opposite), so pages are the same on
all three databases.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    ColumnElement,
    FromClause,
    Select,
    Table,
    and_,
    case,
    false,
    literal,
    or_,
    select,
)
from sqlalchemy.engine import Connection

from placement.actionplans.errors import Invalid, NotFound
from placement.objects.actionplans.idents import canonical_uuid

SORT_DIRS = ("asc", "desc")


@dataclass(frozen=True)
class Page:
    """What the caller asked for; ``limit`` None means every row."""

    limit: int | None = None
    marker: str | None = None
    sort_key: str = "id"
    sort_dir: str = "asc"


@dataclass(frozen=True)
class Row:
    """What every listed row has: its ids and times (the rest is each resource's).

    Rows are frozen values built from one query, so the applier and the
    handlers read attributes mypy checks, never keys of a dict.
    """

    id: int
    uuid: str
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None
    deleted_at: datetime.datetime | None


R = TypeVar("R", bound=Row)


@dataclass(frozen=True)
class Listing(Generic[R]):
    """A resource's query: its table's columns plus joined ones, live rows only.

    Each result is a ``row``, built from ``table``'s column names (less
    ``hidden``) and the keys of ``joined``, whose expressions come from
    ``source`` (``table`` joined to what names it shows): the row type's fields
    are exactly these keys. Every key but ``unsortable`` ones (JSON) may be
    sorted on. ``kind`` names the resource in NotFound errors. ``filters`` are
    the keyword filters of :meth:`fetch_page`, each a value → condition.
    """

    kind: str
    row: type[R]
    table: Table
    source: FromClause
    joined: Mapping[str, ColumnElement[Any]] = field(default_factory=dict)
    unsortable: frozenset[str] = frozenset()
    hidden: frozenset[str] = frozenset()
    filters: Mapping[str, Callable[[str], ColumnElement[bool]]] = field(default_factory=dict)
    #: Whether a marker is a uuid (compared in its stored form); services have none
    #: and page on their id, as text, in the ``uuid`` key.
    marker_is_uuid: bool = True

    @functools.cached_property
    def columns(self) -> dict[str, ColumnElement[Any]]:
        """Each result key and the expression it is read from."""
        own = {column.name: column for column in self.table.c if column.name not in self.hidden}
        return {**own, **self.joined}

    @property
    def sortable(self) -> frozenset[str]:
        return frozenset(self.columns) - self.unsortable

    def query(self) -> Select:
        """Every live row, unordered, labelled with the result keys."""
        return (
            select(*(column.label(key) for key, column in self.columns.items()))
            .select_from(self.source)
            .where(self.table.c.deleted_at.is_(None))
        )

    def fetch_page(self, conn: Connection, page: Page, **wanted: str | None) -> list[R]:
        """One page of live rows, filtered by each of ``wanted`` that is not None."""
        conditions = [
            self.filters[name](value) for name, value in wanted.items() if value is not None
        ]
        return _fetch(conn, self, self.query().where(*conditions), page)

    def one(self, conn: Connection, condition: ColumnElement[bool], ident: str) -> R:
        """The live row matching ``condition``; NotFound naming ``ident`` otherwise."""
        found = conn.execute(self.query().where(condition)).mappings().first()
        if found is None:
            raise NotFound(self.kind, ident)
        return self.row(**found)

    def check(self, page: Page) -> None:
        """Refuse a sort key, direction or limit the API answers 400 for."""
        check_page(page, self.sortable)


def check_page(page: Page, sortable: frozenset[str]) -> None:
    """Refuse a sort key not in ``sortable``, or a direction or limit the API answers 400 for."""
    if page.sort_key not in sortable:
        raise Invalid(f"Invalid sort key: {page.sort_key}")
    if page.sort_dir not in SORT_DIRS:
        raise Invalid(
            f"Invalid sort direction: {page.sort_dir}. Acceptable values are 'asc' or 'desc'"
        )
    if page.limit is not None and page.limit <= 0:
        raise Invalid("Limit must be positive")


def _fetch(conn: Connection, listing: Listing[R], query: Select, page: Page) -> list[R]:
    """The rows of ``query`` (built from ``listing.columns``) on ``page``."""
    listing.check(page)
    key = listing.columns[page.sort_key]
    row_id = listing.columns["id"]
    descending = page.sort_dir == "desc"
    if page.marker is not None:
        query = query.where(_after(conn, listing, query, page))
    order = [row_id] if page.sort_key == "id" else [_not_null(key), key, row_id]
    query = query.order_by(*(column.desc() if descending else column.asc() for column in order))
    if page.limit is not None:
        query = query.limit(page.limit)
    return [listing.row(**found) for found in conn.execute(query).mappings()]


def _not_null(column: ColumnElement[Any]) -> ColumnElement[int]:
    return case((column.is_(None), 0), else_=1)


def _after(conn: Connection, listing: Listing[R], query: Select, page: Page) -> ColumnElement[bool]:
    """The condition "comes after the marker row" in the page's order."""
    assert page.marker is not None
    uuid = canonical_uuid(page.marker) if listing.marker_is_uuid else page.marker
    found = None
    if uuid is not None:
        found = conn.execute(query.where(listing.columns["uuid"] == uuid)).mappings().first()
    if found is None:
        raise NotFound(listing.kind, page.marker)
    key, row_id = listing.columns[page.sort_key], listing.columns["id"]
    last_id, last_key = found["id"], found[page.sort_key]
    descending = page.sort_dir == "desc"

    def beyond(column: ColumnElement[Any], value: Any) -> ColumnElement[bool]:
        bound = literal(value, column.type)  # booleans too (False < True on every backend)
        return column < bound if descending else column > bound

    if page.sort_key == "id":
        return beyond(row_id, last_id)
    if last_key is None:
        # Among the NULLs only id orders; non-NULL keys come after them ascending.
        tie = and_(key.is_(None), beyond(row_id, last_id))
        return or_(key.is_not(None) if not descending else false(), tie)
    later = beyond(key, last_key)
    if descending:
        later = or_(later, key.is_(None))
    return or_(later, and_(key == last_key, beyond(row_id, last_id)))
