"""``column`` is one of a list of ids: bound the cheapest way on each backend.

On PostgreSQL the list is one array parameter: an ``IN`` list of a
parameter per id costs more to render, send and parse than the rows it
selects (4,096 ids took some 20 ms before the statement ran), and the
driver's own adaptation of a list goes element by element in Python, so
the array is sent as one text literal the statement casts. The ids are
then a set the column is ``IN`` (``unnest``), not ``= ANY`` of the array:
PostgreSQL plans ``= ANY`` of a parameter as a filter, which it may put on
a sequential scan of the whole table and test each row against every id
(500 tree roots among 100,000 providers: 1.2 s, against 20 ms through the
index). Elsewhere it is an expanding ``IN``. Either way the caller binds a
plain list of integers.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ARRAY, Integer, String, bindparam, cast, func, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import Boolean, TypeDecorator


class _IdsText(TypeDecorator[list[int]]):
    """A list of ids as a PostgreSQL array literal (``{1,2,3}``)."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: list[int] | None, dialect: Dialect) -> str | None:
        return None if value is None else "{" + ",".join(map(str, value)) + "}"


class OneOf(ColumnElement[bool]):
    """``column`` is one of the ids bound as ``name`` (see the module)."""

    type = Boolean()
    #: A condition of its own: no ``= 1`` where booleans are integers.
    _is_implicitly_boolean = True
    inherit_cache = True
    #: What SQLAlchemy's statement cache keys on: without it the whole
    #: statement would be compiled again on every execution.
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("name", InternalTraversal.dp_string),
    ]

    def __init__(self, column: ColumnElement[int], name: str) -> None:
        self.column = column
        self.name = name


@compiles(OneOf)
def _one_of(element: OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.column.in_(bindparam(element.name, expanding=True)), **kw)


@compiles(OneOf, "postgresql")
def _one_of_postgresql(element: OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    ids = cast(bindparam(element.name, type_=_IdsText()), ARRAY(Integer))
    return compiler.process(element.column.in_(select(func.unnest(ids))), **kw)
