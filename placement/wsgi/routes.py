"""The URL map: each path, the resource serving it, its ``Allow`` header.

Resources for areas not written yet are simply absent; adding an area means
adding its rows here.
"""

from __future__ import annotations

from placement.handlers import (
    aggregate,
    allocation,
    allocation_candidate,
    inventory,
    reshaper,
    resource_class,
    resource_provider,
    root,
    trait,
    usage,
)

# (path template, resource class, methods in upstream's ``Allow`` order)
ROUTES: list[tuple[str, type, str]] = [
    ("/", root.Root, "GET"),
    ("/resource_classes", resource_class.ResourceClasses, "GET, POST"),
    ("/resource_classes/{name}", resource_class.ResourceClass, "GET, PUT, DELETE"),
    ("/traits", trait.Traits, "GET"),
    ("/traits/{name}", trait.Trait, "GET, PUT, DELETE"),
    ("/resource_providers/{uuid}/traits", trait.ProviderTraits, "GET, PUT, DELETE"),
    ("/resource_providers", resource_provider.ResourceProviders, "GET, POST"),
    ("/resource_providers/{uuid}", resource_provider.ResourceProvider, "GET, DELETE, PUT"),
    ("/resource_providers/{uuid}/inventories", inventory.Inventories, "GET, POST, PUT, DELETE"),
    (
        "/resource_providers/{uuid}/inventories/{resource_class}",
        inventory.Inventory,
        "GET, PUT, DELETE",
    ),
    ("/resource_providers/{uuid}/aggregates", aggregate.Aggregates, "GET, PUT"),
    ("/resource_providers/{uuid}/usages", usage.ProviderUsages, "GET"),
    ("/usages", usage.Usages, "GET"),
    ("/resource_providers/{uuid}/allocations", allocation.ProviderAllocations, "GET"),
    ("/allocations", allocation.Allocations, "POST"),
    ("/allocations/{consumer_uuid}", allocation.ConsumerAllocations, "GET, PUT, DELETE"),
    ("/reshaper", reshaper.Reshaper, "POST"),
    ("/allocation_candidates", allocation_candidate.AllocationCandidates, "GET"),
]
