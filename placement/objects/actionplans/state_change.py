"""Compare-and-swap state changes: ``UPDATE … WHERE id = :id AND state = :seen``.

Two requests changing one row at once (two starts of one plan, a skip racing a
cancel) must not both win. Each reads the row, decides from the state it saw,
and updates only if the row still has that state; the loser's UPDATE matches no
row (MySQL and PostgreSQL re-check the condition after the winner commits,
SQLite runs writers one at a time), so it reads the row again and decides
again, which now raises the typed error for the state the winner left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import Table, update
from sqlalchemy.engine import Connection

_ATTEMPTS = 5


class Stateful(Protocol):
    """A row with a state: an audit, a plan or an action."""

    @property
    def id(self) -> int: ...

    @property
    def state(self) -> str: ...


S = TypeVar("S", bound=Stateful)


def change(
    conn: Connection,
    table: Table,
    read: Callable[[], S],
    decide: Callable[[S], dict[str, Any] | None],
) -> S:
    """Apply ``decide(row)``'s new column values to the row ``read()`` returns.

    ``read`` raises NotFound for a missing row; ``decide`` raises the typed error
    for a refused change, or returns None for "nothing to change". Returns the
    row as ``read`` saw it before the change. Call inside a writer transaction.
    """
    for _ in range(_ATTEMPTS):
        row = read()
        values = decide(row)
        if values is None:
            return row
        result = conn.execute(
            update(table)
            .where(table.c.id == row.id, table.c.state == row.state)
            .where(table.c.deleted_at.is_(None))
            .values(**values)
        )
        if result.rowcount == 1:
            return row
    raise RuntimeError(f"{table.name} row {row.id} kept changing state under us")
