"""Turn the names of a parsed request into database ids.

Upstream looks names up group by group and stops at the first group that
cannot match anything, so an unknown name in a later group only matters when
every earlier group could match. Within a group the order is: resource
classes (400), then ``member_of`` (no provider in those aggregates: nothing
matches), then traits (400), then ``in_tree`` (unknown provider: nothing
matches). :func:`group` follows that order and reports "nothing matches" as
``ResolvedGroup.void`` (saying which); the engine decides what an error in a later group
means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import os_traits
from sqlalchemy.engine import Connection

from placement import filters
from placement.candidates import deployment
from placement.candidates.model import (
    VOID_IN_TREE,
    VOID_MEMBER_OF,
    AggregateIds,
    ResolvedGroup,
    TraitIds,
)
from placement.candidates.request import CandidateRequest, RequestGroup
from placement.db import tables
from placement.objects import conditions, exceptions, resource_class, resource_provider, trait

_CLASS_MESSAGE = "Invalid resource class in resources parameter: No such resource class {names}."


#: Upstream's text for an unknown trait, which names only the first one.
_TRAIT_MESSAGE = "No such trait(s): {name}."


def root_traits(
    conn: Connection, wanted: filters.TraitFilter[str], known: deployment.Names | None = None
) -> TraitIds:
    """Ids of ``root_required``; the first unknown name is a 400. ``known``:
    ids read already (see ``deployment.shape``)."""
    return conditions.trait_ids(conn, wanted, message=_TRAIT_MESSAGE, known=known and known.traits)


def named(request: CandidateRequest) -> tuple[set[str], set[str]]:
    """The trait names and aggregate uuids anywhere in ``request``, to be
    read with its shape (``deployment.shape``)."""
    traits: set[str] = set().union(*request.root_traits.required, request.root_traits.forbidden)
    aggregates: set[str] = set()
    for wanted in request.groups:
        traits.update(*wanted.traits.required, wanted.traits.forbidden)
        aggregates.update(*wanted.aggregates.member_of, wanted.aggregates.forbidden)
    return traits, aggregates


def sharing_trait(conn: Connection) -> int:
    """The id of the trait that marks sharing providers."""
    return trait.trait_id(conn, os_traits.MISC_SHARES_VIA_AGGREGATE)


def group(
    conn: Connection, wanted: RequestGroup, known: deployment.Names | None = None
) -> ResolvedGroup:
    """Resolve one group, in upstream's order (see the module docstring).
    ``known``: ids read already (see ``deployment.shape``)."""
    classes = _ids(resource_class.resource_class_ids, conn, list(wanted.resources), _CLASS_MESSAGE)
    amounts = tuple((classes[name], amount) for name, amount in wanted.resources.items())
    aggregates = conditions.aggregate_ids(conn, wanted.aggregates, known=known and known.aggregates)
    if not all(aggregates.member_of):
        return ResolvedGroup(wanted.suffix, amounts, TraitIds(), aggregates, void=VOID_MEMBER_OF)
    try:
        traits = conditions.trait_ids(
            conn, wanted.traits, message=_TRAIT_MESSAGE, known=known and known.traits
        )
    except exceptions.TraitNotFound:
        # Nobody in the aggregates comes first. Otherwise that needs no
        # query of its own: the group's query then finds nothing.
        if aggregates.member_of and not _someone_in(conn, aggregates):
            return ResolvedGroup(
                wanted.suffix, amounts, TraitIds(), aggregates, void=VOID_MEMBER_OF
            )
        raise
    tree = None
    if wanted.in_tree is not None:
        provider = resource_provider.get_by_uuid(conn, wanted.in_tree)
        if provider is None:
            return ResolvedGroup(wanted.suffix, amounts, traits, aggregates, void=VOID_IN_TREE)
        tree = provider.root_provider_id
    return ResolvedGroup(wanted.suffix, amounts, traits, aggregates, tree)


def _someone_in(conn: Connection, aggregates: AggregateIds) -> bool:
    """Whether some provider is itself in an aggregate of every ``member_of`` set."""
    rp = tables.resource_providers
    return conditions.anyone(
        conn, *conditions.in_aggregates(rp.c.id, AggregateIds(aggregates.member_of))
    )


def _ids(
    lookup: Callable[..., dict[str, int]], conn: Connection, names: Iterable[str], message: str
) -> dict[str, int]:
    """``lookup`` the names at once; on failure name only the first unknown one,
    as upstream (which looks names up one by one) does."""
    names = list(names)
    try:
        return lookup(conn, names, message=message)
    except exceptions.NameNotFound:
        for name in names:
            lookup(conn, [name], message=message)
        raise
