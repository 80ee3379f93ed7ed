"""``db.bulk.all_rows``: the statement's rows on every backend, folded into
one JSON array on MySQL/MariaDB (whose driver decodes rows in Python)."""

from __future__ import annotations

from operator import itemgetter

import sqlalchemy
from sqlalchemy import bindparam, event, insert, select

from placement.db import tables, writer
from placement.db.bulk import all_rows

_RP = tables.resource_providers
_ROWS = (
    select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id)
    .where(_RP.c.id.in_(bindparam("ids", expanding=True)))
    .order_by(_RP.c.id.desc())
)


def _providers(engine: sqlalchemy.Engine, count: int) -> None:
    with writer(engine) as conn:
        for n in range(1, count + 1):
            conn.execute(
                insert(_RP).values(
                    id=n,
                    uuid=f"00000000-0000-0000-0000-{n:012d}",
                    name=f"rp-\N{SNOWMAN}-{n}",
                    generation=0,
                    root_provider_id=1,
                    parent_provider_id=None if n == 1 else 1,
                )
            )


def test_rows_are_the_statements(migrated_engine: sqlalchemy.Engine) -> None:
    _providers(migrated_engine, 5)
    with migrated_engine.connect() as conn:
        expected = [tuple(row) for row in conn.execute(_ROWS, {"ids": [1, 2, 3, 4]})]
        found = all_rows(conn, _ROWS, {"ids": [1, 2, 3, 4]}, order=lambda row: -row[0])
        assert [tuple(row) for row in found] == expected
        assert expected[-1] == (1, "00000000-0000-0000-0000-000000000001", None)
        assert all_rows(conn, _ROWS, {"ids": [99]}) == []


def test_mysql_reads_one_row(migrated_engine: sqlalchemy.Engine, backend: str) -> None:
    _providers(migrated_engine, 50)
    fetched: list[int] = []

    def count(conn, cursor, statement, parameters, context, executemany) -> None:
        fetched.append(cursor.rowcount)

    event.listen(migrated_engine, "after_cursor_execute", count)
    with migrated_engine.connect() as conn:
        found = all_rows(conn, _ROWS, {"ids": list(range(1, 51))}, order=itemgetter(0))
    ids = [row[0] for row in found]
    if backend == "mysql":
        assert fetched == [1]  # one row: the JSON array
        assert ids == list(range(1, 51))  # sorted by ``order``
    else:
        assert ids == list(range(50, 0, -1))  # the statement's own order


def test_a_union_all_reads_every_part(migrated_engine: sqlalchemy.Engine, backend: str) -> None:
    """MySQL folds each part of a ``UNION ALL`` into an array of its own
    (one row still); an empty part adds nothing."""
    _providers(migrated_engine, 6)
    parent = select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id).where(_RP.c.id == 1)
    children = select(_RP.c.id, _RP.c.name, _RP.c.root_provider_id).where(_RP.c.id > 4)
    none = select(_RP.c.id, _RP.c.name, _RP.c.root_provider_id).where(_RP.c.id > 99)
    statement = sqlalchemy.union_all(parent, none, children)
    statements: list[str] = []

    def seen(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement != "BEGIN":  # SQLite's, see ``db.engine``
            statements.append(statement)

    event.listen(migrated_engine, "after_cursor_execute", seen)
    with migrated_engine.connect() as conn:
        found = sorted(tuple(row) for row in all_rows(conn, statement))
    assert found == [
        (1, "00000000-0000-0000-0000-000000000001", None),
        (5, "rp-\N{SNOWMAN}-5", 1),
        (6, "rp-\N{SNOWMAN}-6", 1),
    ]
    assert len(statements) == 1
    if backend == "mysql":
        assert statements[0].lower().count("json_arrayagg(json_array(") == 3
