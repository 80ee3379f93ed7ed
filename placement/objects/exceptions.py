"""Typed domain errors of the object layer.

They know nothing of HTTP: each holds the facts of the failure (names, uuids)
and ``message``, upstream's text for the case (see
:class:`placement.domain_errors.DomainError`). Three families say what kind of
failure it is: :class:`NotFound` (something named does not exist),
:class:`Invalid` (the request asks for something that cannot be) and
:class:`Conflict` (what is stored forbids the change). Handlers turn them into
HTTP errors with their own tables (``placement.handlers.base.answering``),
adding the words each route has upstream.
"""

from __future__ import annotations

from typing import Literal

from placement.domain_errors import DomainError


class ObjectError(DomainError):
    """Base of every error of the object layer."""


class NotFound(ObjectError):
    """Something the caller named does not exist."""


class Invalid(ObjectError):
    """The change asked for cannot be made, whatever is stored."""


class Conflict(ObjectError):
    """What is stored forbids the change."""


# --- not found ---------------------------------------------------------------------


class NameNotFound(NotFound):
    """Names of a table of named things (classes, traits) that are not in it."""

    facts = ("message", "names")
    names: tuple[str, ...]


class ResourceClassNotFound(NameNotFound):
    """Resource classes that do not exist."""


class TraitNotFound(NameNotFound):
    """Traits that do not exist."""


class ProviderNotFound(NotFound):
    """A resource provider that does not exist."""

    facts = ("message", "uuid")
    uuid: str


class NoInventoryOfClass(NotFound):
    """The provider has no inventory of a class that exists."""

    facts = ("message", "resource_class")
    resource_class: str


class NoAllocations(NotFound):
    """The consumer holds nothing."""

    facts = ("consumer_uuid",)
    template = "No allocations for consumer '{consumer_uuid}'"
    consumer_uuid: str


# --- invalid ---------------------------------------------------------------------------


class InvalidProvider(Invalid):
    """A provider create or update refused (no name, a bad parent, a loop...)."""

    facts = ("message", "uuid")
    uuid: str


class StandardName(Invalid):
    """A standard resource class or trait, which users may not change or delete."""

    facts = ("message", "name")
    name: str


class InvalidCapacity(Invalid):
    """An inventory whose reserved amount leaves no (or negative) capacity."""

    facts = ("resource_class", "provider_uuid", "relation")
    template = (
        "Invalid inventory for '{resource_class}' on resource provider "
        "'{provider_uuid}'. The reserved value is {relation} total."
    )
    resource_class: str
    provider_uuid: str
    relation: str


class UnknownAllocationProvider(Invalid):
    """Allocations name a provider that does not exist."""

    facts = ("uuid",)
    template = "Allocation for resource provider '{uuid}' that does not exist."
    uuid: str


# --- conflicts --------------------------------------------------------------------


#: Upstream's texts for a lost compare-and-swap, by whose generation it was.
CONCURRENT_UPDATE_MESSAGES = {
    "provider": "Another thread concurrently updated the resource provider data. "
    "Please retry your update",
    "consumer": "Another thread concurrently updated the data. Please retry your update",
}


class ConcurrentUpdate(Conflict):
    """Someone else wrote first: a generation compare-and-swap found it moved, or
    concurrent writers kept taking what a retried write needed.

    ``generation_of`` says whose generation moved (``"provider"``: the
    caller's transaction must roll back, and an allocation write runs again),
    None when retries ran out.
    """

    facts = ("generation_of", "message")
    generation_of: Literal["provider", "consumer"] | None

    def __init__(
        self,
        generation_of: Literal["provider", "consumer"] | None = "provider",
        message: str | None = None,
    ) -> None:
        default = CONCURRENT_UPDATE_MESSAGES[generation_of or "provider"]
        super().__init__(generation_of, message or default)


class StaleGeneration(Conflict):
    """The generation the client sent is not the stored one."""


class AlreadyExists(Conflict):
    """A resource class or provider name (or uuid) that is taken."""

    facts = ("message", "name")
    name: str


class DuplicateProvider(AlreadyExists):
    """A provider name or uuid (``name``: which, and its value) another provider has."""


class InventoryExists(Conflict):
    """Adding inventory of a class the provider has already."""

    facts = ("resource_class", "provider_uuid")
    template = (
        "Inventory of class {resource_class} already exists on resource provider {provider_uuid}."
    )
    resource_class: str
    provider_uuid: str


class InUse(Conflict):
    """A resource class or trait that something still uses."""


class InventoryInUse(Conflict):
    """Removing inventory that allocations still use."""

    facts = ("classes", "provider_uuid")
    template = "Inventory for '{listed}' on resource provider '{provider_uuid}' in use."
    classes: tuple[str, ...]
    provider_uuid: str

    @property
    def listed(self) -> str:
        return ", ".join(self.classes)


class ProviderInUse(Conflict):
    """Deleting a provider that allocations use."""

    facts = ("uuid",)
    template = "Unable to delete resource provider {uuid}: Resource provider has allocations."
    uuid: str


class ProviderHasChildren(Conflict):
    """Deleting a provider that other providers have as their parent."""

    facts = ("uuid",)
    template = "Unable to delete parent resource provider {uuid}: It has child resource providers."
    uuid: str


class InvalidAllocation(Conflict):
    """No inventory, a constraint or the capacity refuses an allocation."""


class TooManyRetries(Conflict):
    """Concurrent writers kept winning until the retries ran out."""
