"""``provider_summaries``: the providers of the answer's trees, per microversion.

:func:`load` reads, for whole trees, each provider's uuids, capacity and
usage per class and trait names (capacity and traits from :mod:`known`
while the provider's generation stands); :func:`text` writes them as the JSON text
the requested microversion shows:

* < 1.27 only the classes some group requested, from 1.27 every class;
* ``traits`` from 1.17;
* ``parent_provider_uuid`` / ``root_provider_uuid`` from 1.29.
"""

from __future__ import annotations

from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import Any, NamedTuple

import sqlalchemy
from sqlalchemy import (
    String,
    cast,
    func,
    literal_column,
    null,
    select,
    union_all,
)
from sqlalchemy.engine import Connection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal

from placement import microversion as mv
from placement.candidates.known import Details, Known
from placement.candidates.model import Provider, Trees
from placement.candidates.query import in_written_order
from placement.candidates.trees import chunks
from placement.db import tables
from placement.db.bulk import all_rows
from placement.db.ids import OneOf
from placement.objects.conditions import capacity

_RP = tables.resource_providers
_ALLOC = tables.allocations
_INV = tables.inventories
_RC = tables.resource_classes
_RPT = tables.resource_provider_traits
_TRAITS = tables.traits

#: Trees per query: below every backend's limit on bound parameters.
CHUNK = 2000


class _TextOf(ColumnElement[str]):
    """A text column each backend writes its own way from ``value`` (see
    the subclasses' ``@compiles``)."""

    type = String()
    inherit_cache = True
    #: What SQLAlchemy's statement cache keys on: without it the whole
    #: statement would be compiled again on every execution.
    _traverse_internals = [("value", InternalTraversal.dp_clauseelement)]

    def __init__(self, value: ColumnElement) -> None:
        self.value = value


class _FloatText(_TextOf):
    """A float as text that reads back as the very value the driver would
    have returned for the column (SQLite's plain ``CAST`` keeps only 15
    digits; the others print what their drivers read)."""

    inherit_cache = True


@compiles(_FloatText)
def _float_text(element: _FloatText, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(cast(element.value, String), **kw)


@compiles(_FloatText, "sqlite")
def _float_text_sqlite(element: _FloatText, compiler: SQLCompiler, **kw: Any) -> str:
    return f"printf('%!.17g', {compiler.process(element.value, **kw)})"


class _Incarnation(_TextOf):
    """What tells a provider from an earlier one under the same id, for
    :mod:`known`: SQLite gives the highest id again once its provider is
    deleted, so there the creation time (as the stored text, to the
    microsecond); PostgreSQL's sequences and InnoDB's counters never give
    an id twice, so elsewhere nothing (``NULL``) and nothing to read."""

    inherit_cache = True


@compiles(_Incarnation)
def _incarnation(element: _Incarnation, compiler: SQLCompiler, **kw: Any) -> str:
    return "NULL"


@compiles(_Incarnation, "sqlite")
def _incarnation_sqlite(element: _Incarnation, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.value, **kw)


class _Reads(NamedTuple):
    """The statements reading the providers whose ``column`` is in ``:ids``."""

    #: One row per provider (kind :data:`PROVIDER`: uuid, incarnation,
    #: generation, parent, root), per provider with usage (:data:`USAGE`)
    #: and per resource class (:data:`CLASS_NAME`).
    providers: sqlalchemy.CompoundSelect
    #: The inventories (with the generation they were read at) and traits
    #: of the providers ``:missing`` from :mod:`known`, one row per
    #: provider and kind (:data:`INVENTORIES`, :data:`TRAITS`).
    details: sqlalchemy.CompoundSelect


def _statements(column: ColumnElement[int]) -> _Reads:
    """The reads of the providers whose ``column`` is in ``:ids``, built
    once (SQLAlchemy then reuses their compiled form). Each row of the
    details holds its items folded into one text column (``,`` between
    items, their fields split by blanks: class and trait names have
    neither): a row per item costs several times more to fetch and convert,
    mostly in the driver.
    """
    wanted = OneOf(column, "ids")
    missing = OneOf(_RP.c.id, "missing")
    # Every class: a short table, where picking those of the providers'
    # inventories cost a join over all of their inventories.
    names = select(
        _RC.c.id, literal_column(str(CLASS_NAME)).label("kind"), _RC.c.name, *[null()] * 4
    )
    return _Reads(
        providers=union_all(
            _providers_read(wanted), _usage_read(wanted).add_columns(*[null()] * 4), names
        ),
        details=union_all(_inventories_read(missing), _traits_read(missing)),
    )


def _usage_read(wanted: ColumnElement[bool]) -> sqlalchemy.Select:
    """A provider's usage as one text: "class used" per class."""
    per_class = in_written_order(
        select(
            _ALLOC.c.resource_provider_id,
            _ALLOC.c.resource_class_id,
            func.sum(_ALLOC.c.used).label("used"),
        )
        .select_from(_RP.join(_ALLOC, _ALLOC.c.resource_provider_id == _RP.c.id))
        .where(wanted)
        .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id)
    ).subquery()
    return select(
        per_class.c.resource_provider_id,
        # The union's column names (MySQL reads it as a derived table, see
        # ``db.bulk``): an unnamed literal would be a column named "0".
        literal_column(str(USAGE)).label("kind"),
        func.aggregate_strings(_text(per_class.c.resource_class_id, per_class.c.used), ",").label(
            "items"
        ),
    ).group_by(per_class.c.resource_provider_id)


def _inventories_read(missing: ColumnElement[bool]) -> sqlalchemy.Select:
    """A provider's generation and inventories as one text, empty ones too."""
    inventory = _text(_RC.c.id, _RC.c.name, _INV.c.total, _INV.c.reserved)
    inventory = inventory + " " + _FloatText(_INV.c.allocation_ratio)
    return in_written_order(
        select(
            _RP.c.id,
            literal_column(str(INVENTORIES)).label("kind"),
            cast(_RP.c.generation, String)
            + ";"
            + func.coalesce(func.aggregate_strings(inventory, ","), ""),
        )
        .select_from(
            _RP.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id).outerjoin(
                _RC, _RC.c.id == _INV.c.resource_class_id
            )
        )
        .where(missing)
        .group_by(_RP.c.id, _RP.c.generation)
    )


def _traits_read(missing: ColumnElement[bool]) -> sqlalchemy.Select:
    """A provider's traits as one text: "id name" per trait."""
    return in_written_order(
        select(
            _RPT.c.resource_provider_id,
            literal_column(str(TRAITS)).label("kind"),
            func.aggregate_strings(_text(_TRAITS.c.id, _TRAITS.c.name), ","),
        )
        .select_from(
            _RP.join(_RPT, _RPT.c.resource_provider_id == _RP.c.id).join(
                _TRAITS, _TRAITS.c.id == _RPT.c.trait_id
            )
        )
        .where(missing)
        .group_by(_RPT.c.resource_provider_id)
    )


def _providers_read(wanted: ColumnElement[bool]) -> sqlalchemy.Select:
    """The providers' own columns: uuid, incarnation, generation, parent, root."""
    return select(
        _RP.c.id,
        literal_column(str(PROVIDER)).label("kind"),
        _RP.c.uuid,
        _Incarnation(_RP.c.created_at),
        _RP.c.generation,
        _RP.c.parent_provider_id,
        _RP.c.root_provider_id,
    ).where(wanted)


def _text(*columns: ColumnElement) -> ColumnElement[str]:
    """The columns as one text, split by blanks."""
    parts = [c if isinstance(c.type, String) else cast(c, String) for c in columns]
    text = parts[0]
    for part in parts[1:]:
        text = text + " " + part
    return text


#: The kinds of row of the reads, in :class:`_Details` order: a
#: provider's usage ("class used,…"), inventories ("generation;class name
#: total reserved ratio,…") or traits ("id name,…"), or a class name; then
#: a provider itself.
USAGE, INVENTORIES, TRAITS, CLASS_NAME, PROVIDER = range(5)

_BY_ROOT = _statements(_RP.c.root_provider_id)
_BY_ID = _statements(_RP.c.id)


def load(conn: Connection, known: Known, roots: Iterable[int], extra: Iterable[int] = ()) -> Trees:
    """The trees rooted at ``roots``, plus the single providers ``extra``.

    Inventories and traits come from ``known`` for the providers whose
    generation has not moved since they were read, and are read (and kept
    there) for the others; usage and class names are read every time.
    """
    trees = Trees()
    for chunk in chunks(set(roots), CHUNK):
        _load(conn, known, trees, _BY_ROOT, chunk)
    missing = set(extra) - set(trees.providers)
    for chunk in chunks(missing, CHUNK):
        _load(conn, known, trees, _BY_ID, chunk)
    return trees


class _Details(NamedTuple):
    """What the details read returned, by provider (class, for ``names``) id."""

    usage: dict[int, str]
    inventories: dict[int, str]
    traits: dict[int, str]
    names: dict[int, str]


def _load(conn: Connection, known: Known, trees: Trees, reads: _Reads, ids: list[int]) -> None:
    """Read the providers ``ids`` (with usage and class names: one statement
    when all are known), then the inventories and traits of those not yet
    known, a chunk at a time."""
    read = _Details({}, {}, {}, {})
    kept, unknown = _read_providers(conn, known, trees, reads, ids, read)
    for batch in chunks(unknown, CHUNK):
        for id_, kind, text in all_rows(conn, reads.details, {"missing": batch}):
            read[kind][id_] = text
    _learn(known, unknown, read, kept)
    _show(trees, kept, read)


def _read_providers(
    conn: Connection, known: Known, trees: Trees, reads: _Reads, ids: list[int], read: _Details
) -> tuple[dict[int, Details], dict[int, tuple[str, str | None]]]:
    """Put the providers ``ids`` in ``trees`` and their usage and class
    names in ``read``; return the details kept of those known and the uuid
    and incarnation of the others."""
    kept: dict[int, Details] = {}
    unknown: dict[int, tuple[str, str | None]] = {}
    for id_, kind, text, incarnation, generation, parent, root in all_rows(
        conn, reads.providers, {"ids": ids}
    ):
        if kind != PROVIDER:
            read[kind][id_] = text
            continue
        trees.providers[id_] = Provider(text, parent, root)
        details = known.get(id_, text, generation, incarnation)
        if details is None:
            unknown[id_] = (text, incarnation)
        else:
            kept[id_] = details
    return kept, unknown


def _learn(
    known: Known,
    unknown: dict[int, tuple[str, str | None]],
    read: _Details,
    kept: dict[int, Details],
) -> None:
    """Parse the inventories and traits ``read`` of the ``unknown``
    providers into ``kept``, and keep them in ``known``."""
    # Providers of one model read the same texts: each is parsed once.
    parsed_inventories: dict[str, tuple[tuple[int, int], ...]] = {}
    parsed_traits: dict[str, tuple[str, ...]] = {"": ()}
    for id_, (uuid, incarnation) in unknown.items():
        inventories = read.inventories.get(id_)
        if inventories is None:  # deleted since the first read: shown as it was, empty
            continue
        generation, _, items = inventories.partition(";")
        resources = parsed_inventories.get(items)
        if resources is None:
            resources = parsed_inventories[items] = _inventories(items, read.names)
        traits_text = read.traits.get(id_, "")
        traits = parsed_traits.get(traits_text)
        if traits is None:
            traits = parsed_traits[traits_text] = _trait_names(traits_text)
        kept[id_] = known.put(id_, Details(uuid, int(generation), incarnation, resources, traits))


def _show(trees: Trees, kept: dict[int, Details], read: _Details) -> None:
    """Give each provider of ``kept`` its resources (with usage) and traits."""
    resources: dict[tuple, list[tuple[str, int, int]]] = {}
    for id_, details in kept.items():
        # Providers of one model with the same usage share one list.
        key = (details.inventories, read.usage.get(id_))
        shown = resources.get(key)
        if shown is None:
            used = _usage(key[1])
            shown = resources[key] = [
                (read.names[class_id], capacity, used.get(class_id, 0))
                for class_id, capacity in details.inventories
            ]
        provider = trees.providers[id_]
        provider.resources = shown
        provider.traits = details.traits


def _usage(text: str | None) -> dict[int, int]:
    """``"class used,class used"`` → used by class id."""
    if text is None:
        return {}
    return {int(class_id): int(used) for class_id, used in (i.split(" ") for i in text.split(","))}


def _inventories(text: str, names: dict[int, str]) -> tuple[tuple[int, int], ...]:
    """``"class name total reserved ratio,…"`` → (class id, capacity) by
    class id; each class's name goes into ``names``."""
    if not text:
        return ()
    found = []
    for item in text.split(","):
        class_id, name, total, reserved, ratio = item.split(" ")
        names[int(class_id)] = name
        found.append((int(class_id), int(capacity(int(total), int(reserved), float(ratio)))))
    return tuple(sorted(found))


def _trait_names(text: str) -> tuple[str, ...]:
    """``"id name,id name"`` → the names in id order (as upstream lists them)."""
    pairs = [item.split(" ") for item in text.split(",")]
    return tuple(name for _, name in sorted(pairs, key=lambda pair: int(pair[0])))


# One loop over the providers shown, kept inline on purpose: a call per
# provider costs more than the formatting saves (see the docstring).
def text(  # noqa: PLR0915
    trees: Trees, shown: Iterable[int], version: mv.Version, requested: set[str]
) -> str:
    """The ``provider_summaries`` object for the providers ``shown``, as JSON
    text written directly: the summaries are most of a big answer, and
    formatting them is twice as fast as building dicts and encoding them."""
    all_classes = version >= mv.SUMMARIES_ALL_CLASSES
    with_traits = version >= mv.CANDIDATES_TRAITS
    nested = version >= mv.NESTED_CANDIDATES
    providers = trees.providers
    quoted = _Quoted()
    # Providers of one model share their lists of resources and of traits
    # (see ``_show``): each distinct list is written once, found by its
    # identity (hashing the lists' contents cost more than writing them).
    resources_text: dict[int, str] = {}
    traits_text: dict[int, str] = {}
    parts = []
    for id_ in sorted(shown):
        provider = providers[id_]
        resources = resources_text.get(id(provider.resources))
        if resources is None:
            resources = resources_text[id(provider.resources)] = ", ".join(
                [
                    f'{quoted[name]}: {{"capacity": {capacity}, "used": {used}}}'
                    for name, capacity, used in provider.resources
                    if all_classes or name in requested
                ]
            )
        part = f'{quoted[provider.uuid]}: {{"resources": {{{resources}}}'
        if with_traits:
            traits = traits_text.get(id(provider.traits))
            if traits is None:
                traits = traits_text[id(provider.traits)] = ", ".join(
                    [quoted[name] for name in provider.traits]
                )
            part = f'{part}, "traits": [{traits}]'
        if nested:
            parent = (
                quoted[providers[provider.parent].uuid] if provider.parent is not None else "null"
            )
            part = (
                f'{part}, "parent_provider_uuid": {parent}, '
                f'"root_provider_uuid": {quoted[providers[provider.root].uuid]}'
            )
        parts.append(part + "}")
    return "{" + ", ".join(parts) + "}"


class _Quoted(dict):
    """A string → its JSON text, encoded once."""

    def __missing__(self, value: str) -> str:
        encoded = self[value] = encode_basestring_ascii(value)
        return encoded
