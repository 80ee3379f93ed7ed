"""``provider_summaries``: the providers of the answer's trees, per microversion.

:func:`load` reads, for whole trees, each provider's uuids, capacity and
usage per class and trait names; :func:`render` shapes them the way the
requested microversion shows them, and :func:`text` writes the same as JSON
text directly (what the engine uses):

* < 1.27 only the classes some group requested, from 1.27 every class;
* ``traits`` from 1.17;
* ``parent_provider_uuid`` / ``root_provider_uuid`` from 1.29.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from placement import microversion as mv
from placement.candidates.trees import chunks
from placement.db import tables

_RP = tables.resource_providers
_INV = tables.inventories
_ALLOC = tables.allocations
_RC = tables.resource_classes
_RPT = tables.resource_provider_traits
_TRAITS = tables.traits

#: Trees per query: below every backend's limit on bound parameters.
CHUNK = 2000


class Provider:
    """One provider of a loaded tree (plain slots: thousands are made per answer)."""

    __slots__ = ("uuid", "parent", "root", "resources", "traits")

    def __init__(self, uuid: str, parent: int | None, root: int) -> None:
        self.uuid = uuid
        self.parent = parent
        self.root = root
        #: (class name, capacity, used) per inventory, in the order read
        self.resources: list[tuple[str, int, int]] = []
        self.traits: list[str] = []


@dataclass
class Trees:
    """Whole trees, by provider id."""

    providers: dict[int, Provider] = field(default_factory=dict)

    def uuid(self, provider: int) -> str:
        return self.providers[provider].uuid


def _statements(column) -> tuple:
    """The reads for providers whose ``column`` is in ``:ids``, built once
    (SQLAlchemy then reuses their compiled form): each provider with each of
    its inventories (or none), and their traits."""
    wanted = column.in_(bindparam("ids", expanding=True))
    used = (select(func.coalesce(func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id == _INV.c.resource_provider_id,
                   _ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    return (
        select(_RP.c.id, _RP.c.uuid, _RP.c.parent_provider_id, _RP.c.root_provider_id,
               _RC.c.name, _INV.c.total, _INV.c.reserved, _INV.c.allocation_ratio, used)
        .select_from(_RP.outerjoin(_INV, _INV.c.resource_provider_id == _RP.c.id)
                     .outerjoin(_RC, _RC.c.id == _INV.c.resource_class_id))
        .where(wanted),
        select(_RPT.c.resource_provider_id, _TRAITS.c.name)
        .join(_TRAITS, _TRAITS.c.id == _RPT.c.trait_id)
        .join(_RP, _RP.c.id == _RPT.c.resource_provider_id)
        .where(wanted).order_by(_RPT.c.resource_provider_id, _RPT.c.trait_id),
    )


_BY_ROOT = _statements(_RP.c.root_provider_id)
_BY_ID = _statements(_RP.c.id)


def load(conn: Connection, roots: Iterable[int], extra: Iterable[int] = ()) -> Trees:
    """The trees rooted at ``roots``, plus the single providers ``extra``."""
    trees = Trees()
    for chunk in chunks(set(roots), CHUNK):
        _load(conn, trees, _BY_ROOT, chunk)
    missing = set(extra) - set(trees.providers)
    for chunk in chunks(missing, CHUNK):
        _load(conn, trees, _BY_ID, chunk)
    return trees


def _load(conn: Connection, trees: Trees, statements: tuple, ids: list[int]) -> None:
    inventories_query, traits_query = statements
    params = {"ids": ids}
    providers = trees.providers
    for id_, uuid, parent, root, class_name, total, reserved, ratio, in_use in conn.execute(
            inventories_query, params).all():
        provider = providers.get(id_)
        if provider is None:
            provider = providers[id_] = Provider(uuid, parent, root)
        if class_name is not None:
            provider.resources.append((class_name, int((total - reserved) * ratio), int(in_use)))
    for id_, name in conn.execute(traits_query, params).all():
        providers[id_].traits.append(name)


def render(trees: Trees, shown: Iterable[int], version: mv.Version,
           requested: set[str]) -> dict[str, dict]:
    """The ``provider_summaries`` object for the providers ``shown``."""
    all_classes = version >= mv.SUMMARIES_ALL_CLASSES
    with_traits = version >= mv.CANDIDATES_TRAITS
    nested = version >= mv.NESTED_CANDIDATES
    providers = trees.providers
    summaries = {}
    for id_ in sorted(shown):
        provider = providers[id_]
        summary: dict = {"resources": {
            name: {"capacity": capacity, "used": used}
            for name, capacity, used in provider.resources
            if all_classes or name in requested}}
        if with_traits:
            summary["traits"] = list(provider.traits)
        if nested:
            summary["parent_provider_uuid"] = (providers[provider.parent].uuid
                                               if provider.parent is not None else None)
            summary["root_provider_uuid"] = providers[provider.root].uuid
        summaries[provider.uuid] = summary
    return summaries


def text(trees: Trees, shown: Iterable[int], version: mv.Version, requested: set[str]) -> str:
    """``json.dumps(render(...))``, written directly: the summaries are most
    of a big answer, and formatting them is twice as fast as building the
    dicts and encoding them."""
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
            resources = resources_text[key] = ", ".join([
                f'{quoted[name]}: {{"capacity": {capacity}, "used": {used}}}'
                for name, capacity, used in key if all_classes or name in requested])
        part = f'{quoted[provider.uuid]}: {{"resources": {{{resources}}}'
        if with_traits:
            key = tuple(provider.traits)
            traits = traits_text.get(key)
            if traits is None:
                traits = traits_text[key] = ", ".join([quoted[name] for name in key])
            part += ', "traits": [' + traits + "]"
        if nested:
            parent = (quoted[providers[provider.parent].uuid] if provider.parent is not None
                      else "null")
            part += (f', "parent_provider_uuid": {parent}, '
                     f'"root_provider_uuid": {quoted[providers[provider.root].uuid]}')
        parts.append(part + "}")
    return "{" + ", ".join(parts) + "}"


class _Quoted(dict):
    """A string → its JSON text, encoded once."""

    def __missing__(self, value: str) -> str:
        encoded = self[value] = encode_basestring_ascii(value)
        return encoded
