"""``provider_summaries``: the providers of the answer's trees, per microversion.

:func:`load` reads, for whole trees, each provider's uuids, capacity and
usage per class and trait names; :func:`text` writes them as the JSON text
the requested microversion shows:

* < 1.27 only the classes some group requested, from 1.27 every class;
* ``traits`` from 1.17;
* ``parent_provider_uuid`` / ``root_provider_uuid`` from 1.29.
"""

from __future__ import annotations

from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import Any

import sqlalchemy
from sqlalchemy import ARRAY, Integer, String, any_, bindparam, cast, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal

from placement import microversion as mv
from placement.candidates.model import Provider, Trees
from placement.candidates.query import in_written_order
from placement.candidates.trees import chunks
from placement.db import tables
from placement.objects.conditions import capacity, used

_RP = tables.resource_providers
_INV = tables.inventories
_RC = tables.resource_classes
_RPT = tables.resource_provider_traits
_TRAITS = tables.traits

#: Trees per query: below every backend's limit on bound parameters.
CHUNK = 2000


class _FloatText(ColumnElement[str]):
    """A float as text that reads back as the very value the driver would
    have returned for the column (SQLite's plain ``CAST`` keeps only 15
    digits; the others print what their drivers read)."""

    type = String()
    inherit_cache = True
    #: What SQLAlchemy's statement cache keys on: without it the whole
    #: statement would be compiled again on every execution.
    _traverse_internals = [("value", InternalTraversal.dp_clauseelement)]

    def __init__(self, value: ColumnElement) -> None:
        self.value = value


@compiles(_FloatText)
def _float_text(element: _FloatText, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(cast(element.value, String), **kw)


@compiles(_FloatText, "sqlite")
def _float_text_sqlite(element: _FloatText, compiler: SQLCompiler, **kw: Any) -> str:
    return f"printf('%!.17g', {compiler.process(element.value, **kw)})"


def _statements(
    column: ColumnElement[int], *, array: bool
) -> tuple[sqlalchemy.Select, sqlalchemy.Select]:
    """The reads of the providers whose ``column`` is in ``:ids``, built once
    (SQLAlchemy then reuses their compiled form). With ``array`` (PostgreSQL)
    the ids are bound as one array (``= ANY``): an ``IN`` list of a parameter
    per id costs more to render, send and parse than the rows it selects.
    Each provider with its
    inventories, and the traits of those that have some, one row per
    provider, the items folded into one text column (``,`` between items,
    their fields split by blanks: class and trait names have neither).
    A row per inventory and per trait costs several times more to fetch
    and convert, mostly in the driver.
    """
    wanted = (
        column == any_(bindparam("ids", type_=ARRAY(Integer)))
        if array
        else column.in_(bindparam("ids", expanding=True))
    )
    inventory: ColumnElement[str] = _RC.c.name
    for part in (
        cast(_INV.c.total, String),
        cast(_INV.c.reserved, String),
        _FloatText(_INV.c.allocation_ratio),
        cast(used(_INV.c.resource_provider_id, _INV.c.resource_class_id), String),
    ):
        inventory = inventory + " " + part
    provider = (_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id, _RP.c.root_provider_id)
    trait = cast(_TRAITS.c.id, String) + " " + _TRAITS.c.name
    return (
        in_written_order(
            select(*provider, func.aggregate_strings(inventory, ","))
            .select_from(
                _RP.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id).outerjoin(
                    _RC, _RC.c.id == _INV.c.resource_class_id
                )
            )
            .where(wanted)
            .group_by(*provider)
        ),
        in_written_order(
            select(_RPT.c.resource_provider_id, func.aggregate_strings(trait, ","))
            .select_from(
                _RP.join(_RPT, _RPT.c.resource_provider_id == _RP.c.id).join(
                    _TRAITS, _TRAITS.c.id == _RPT.c.trait_id
                )
            )
            .where(wanted)
            .group_by(_RPT.c.resource_provider_id)
        ),
    )


#: Keyed by whether the database takes an array parameter (PostgreSQL).
_BY_ROOT = {array: _statements(_RP.c.root_provider_id, array=array) for array in (False, True)}
_BY_ID = {array: _statements(_RP.c.id, array=array) for array in (False, True)}


def load(conn: Connection, roots: Iterable[int], extra: Iterable[int] = ()) -> Trees:
    """The trees rooted at ``roots``, plus the single providers ``extra``."""
    trees = Trees()
    array = conn.dialect.name == "postgresql"
    for chunk in chunks(set(roots), CHUNK):
        _load(conn, trees, _BY_ROOT[array], chunk)
    missing = set(extra) - set(trees.providers)
    for chunk in chunks(missing, CHUNK):
        _load(conn, trees, _BY_ID[array], chunk)
    return trees


def _load(conn: Connection, trees: Trees, statements: tuple, ids: list[int]) -> None:
    inventories_query, traits_query = statements
    params = {"ids": ids}
    providers = trees.providers
    # Providers of one model share the same texts: each is parsed once.
    parsed_inventories: dict[str | None, list[tuple[str, int, int]]] = {None: []}
    for id_, uuid, parent, root, inventories in conn.execute(inventories_query, params).all():
        provider = providers[id_] = Provider(uuid, parent, root)
        resources = parsed_inventories.get(inventories)
        if resources is None:
            resources = parsed_inventories[inventories] = [
                _inventory(item) for item in inventories.split(",")
            ]
        provider.resources = resources
    parsed_traits: dict[str, list[str]] = {}
    for id_, traits in conn.execute(traits_query, params).all():
        names = parsed_traits.get(traits)
        if names is None:
            names = parsed_traits[traits] = _trait_names(traits)
        providers[id_].traits = names


def _trait_names(text: str) -> list[str]:
    """``"id name,id name"`` → the names in id order (as upstream lists them)."""
    pairs = [item.split(" ") for item in text.split(",")]
    return [name for _, name in sorted(pairs, key=lambda pair: int(pair[0]))]


def _inventory(text: str) -> tuple[str, int, int]:
    """``"NAME total reserved ratio used"`` → (name, capacity, used)."""
    name, total, reserved, ratio, taken = text.split(" ")
    return name, int(capacity(int(total), int(reserved), float(ratio))), int(taken)


def text(trees: Trees, shown: Iterable[int], version: mv.Version, requested: set[str]) -> str:
    """The ``provider_summaries`` object for the providers ``shown``, as JSON
    text written directly: the summaries are most of a big answer, and
    formatting them is twice as fast as building dicts and encoding them."""
    all_classes = version >= mv.SUMMARIES_ALL_CLASSES
    with_traits = version >= mv.CANDIDATES_TRAITS
    nested = version >= mv.NESTED_CANDIDATES
    providers = trees.providers
    quoted = _Quoted()
    # Providers of one model show the same inventories and traits: each
    # distinct list is written once.
    resources_text: dict[tuple, str] = {}
    traits_text: dict[tuple, str] = {}
    parts = []
    for id_ in sorted(shown):
        provider = providers[id_]
        key = tuple(provider.resources)
        resources = resources_text.get(key)
        if resources is None:
            resources = resources_text[key] = ", ".join(
                [
                    f'{quoted[name]}: {{"capacity": {capacity}, "used": {used}}}'
                    for name, capacity, used in key
                    if all_classes or name in requested
                ]
            )
        part = f'{quoted[provider.uuid]}: {{"resources": {{{resources}}}'
        if with_traits:
            names = tuple(provider.traits)
            traits = traits_text.get(names)
            if traits is None:
                traits = traits_text[names] = ", ".join([quoted[name] for name in names])
            part += ', "traits": [' + traits + "]"
        if nested:
            parent = (
                quoted[providers[provider.parent].uuid] if provider.parent is not None else "null"
            )
            part += (
                f', "parent_provider_uuid": {parent}, '
                f'"root_provider_uuid": {quoted[providers[provider.root].uuid]}'
            )
        parts.append(part + "}")
    return "{" + ", ".join(parts) + "}"


class _Quoted(dict):
    """A string → its JSON text, encoded once."""

    def __missing__(self, value: str) -> str:
        encoded = self[value] = encode_basestring_ascii(value)
        return encoded
