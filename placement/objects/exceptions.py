"""Typed domain errors of the object layer.

They know nothing of HTTP: each carries the facts of the failure (names,
uuids) and ``message``, upstream's text for the case. Three families say what
kind of failure it is: :class:`NotFound` (something named does not exist),
:class:`Invalid` (the request asks for something that cannot be) and
:class:`Conflict` (what is stored forbids the change). Handlers turn them into
HTTP errors with their own tables (``placement.handlers.base.answering``),
adding the words each route has upstream.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal


class ObjectError(Exception):
    """Base of every error of the object layer; ``str()`` is ``message``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFound(ObjectError):
    """Something the caller named does not exist."""


class Invalid(ObjectError):
    """The change asked for cannot be made, whatever is stored."""


class Conflict(ObjectError):
    """What is stored forbids the change."""


# --- not found ---------------------------------------------------------------------


class NameNotFound(NotFound):
    """Names of a table of named things (classes, traits) that are not in it."""

    def __init__(self, message: str, names: Iterable[str]) -> None:
        super().__init__(message)
        self.names = tuple(names)


class ResourceClassNotFound(NameNotFound):
    """Resource classes that do not exist."""


class TraitNotFound(NameNotFound):
    """Traits that do not exist."""


class ProviderNotFound(NotFound):
    """A resource provider that does not exist."""

    def __init__(self, message: str, uuid: str) -> None:
        super().__init__(message)
        self.uuid = uuid


class NoInventoryOfClass(NotFound):
    """The provider has no inventory of a class that exists."""

    def __init__(self, message: str, resource_class: str) -> None:
        super().__init__(message)
        self.resource_class = resource_class


class NoAllocations(NotFound):
    """The consumer holds nothing."""

    def __init__(self, consumer_uuid: str) -> None:
        super().__init__(f"No allocations for consumer '{consumer_uuid}'")
        self.consumer_uuid = consumer_uuid


# --- invalid ---------------------------------------------------------------------------


class InvalidProvider(Invalid):
    """A provider create or update refused (no name, a bad parent, a loop...)."""

    def __init__(self, message: str, uuid: str) -> None:
        super().__init__(message)
        self.uuid = uuid


class StandardName(Invalid):
    """A standard resource class or trait, which users may not change or delete."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class InvalidCapacity(Invalid):
    """An inventory whose reserved amount leaves no (or negative) capacity."""

    def __init__(self, resource_class: str, provider_uuid: str, relation: str) -> None:
        super().__init__(
            f"Invalid inventory for '{resource_class}' on resource provider "
            f"'{provider_uuid}'. The reserved value is {relation} total."
        )
        self.resource_class = resource_class
        self.provider_uuid = provider_uuid


class UnknownAllocationProvider(Invalid):
    """Allocations name a provider that does not exist."""

    def __init__(self, uuid: str) -> None:
        super().__init__(f"Allocation for resource provider '{uuid}' that does not exist.")
        self.uuid = uuid


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

    def __init__(
        self,
        generation_of: Literal["provider", "consumer"] | None = "provider",
        message: str | None = None,
    ) -> None:
        super().__init__(message or CONCURRENT_UPDATE_MESSAGES[generation_of or "provider"])
        self.generation_of = generation_of


class StaleGeneration(Conflict):
    """The generation the client sent is not the stored one."""


class AlreadyExists(Conflict):
    """A resource class or provider name (or uuid) that is taken."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class DuplicateProvider(AlreadyExists):
    """A provider name or uuid that another provider has."""


class InventoryExists(Conflict):
    """Adding inventory of a class the provider has already."""

    def __init__(self, resource_class: str, provider_uuid: str) -> None:
        super().__init__(
            f"Inventory of class {resource_class} already exists on resource provider "
            f"{provider_uuid}."
        )
        self.resource_class = resource_class
        self.provider_uuid = provider_uuid


class InUse(Conflict):
    """A resource class or trait that something still uses."""


class InventoryInUse(Conflict):
    """Removing inventory that allocations still use."""

    def __init__(self, classes: Iterable[str], provider_uuid: str) -> None:
        self.classes = tuple(classes)
        super().__init__(
            f"Inventory for '{', '.join(self.classes)}' on resource provider "
            f"'{provider_uuid}' in use."
        )
        self.provider_uuid = provider_uuid


class ProviderInUse(Conflict):
    """Deleting a provider that allocations use."""

    def __init__(self, uuid: str) -> None:
        super().__init__(
            f"Unable to delete resource provider {uuid}: Resource provider has allocations."
        )
        self.uuid = uuid


class ProviderHasChildren(Conflict):
    """Deleting a provider that other providers have as their parent."""

    def __init__(self, uuid: str) -> None:
        super().__init__(
            f"Unable to delete parent resource provider {uuid}: It has child resource providers."
        )
        self.uuid = uuid


class InvalidAllocation(Conflict):
    """No inventory, a constraint or the capacity refuses an allocation."""


class TooManyRetries(Conflict):
    """Concurrent writers kept winning until the retries ran out."""
