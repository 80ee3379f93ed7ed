"""``/resource_providers/{uuid}/inventories`` and ``.../inventories/{resource_class}``.

Write responses echo the records as the request gave them (defaults filled
in), not as re-read from the database, so JSON types survive the round trip.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import falcon

from placement import errors
from placement import microversion as mv
from placement.handlers import base
from placement.handlers.resource_provider import load_provider, provider_path
from placement.objects import exceptions
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.schemas import inventory as schema

_GENERATION_CONFLICT = "resource provider generation conflict"

# How each write words the object layer's errors (upstream's texts); the
# templates' ``provider`` and ``rc`` are the request's.
_UNUSABLE = base.Answer(
    errors.BadRequest, "Unable to update inventory for resource provider {provider}: {message}"
)
_LOST = base.Answer(errors.Conflict, "update conflict: {message}", errors.CONCURRENT_UPDATE)
_CANNOT_CREATE = base.Answer(
    errors.BadRequest, "Unable to create inventory for resource provider {provider}: {message}"
)
_CREATE: base.Answers = {
    exceptions.InvalidCapacity: _CANNOT_CREATE,
    exceptions.ResourceClassNotFound: _CANNOT_CREATE,
    exceptions.Conflict: base.Answer(
        errors.Conflict, "Update conflict: {message}", errors.CONCURRENT_UPDATE
    ),
}
_REPLACE: base.Answers = {
    exceptions.InvalidCapacity: _UNUSABLE,
    exceptions.ResourceClassNotFound: base.Answer(
        errors.BadRequest,
        "Unknown resource class in inventory for resource provider {provider}: {message}",
    ),
    exceptions.InventoryInUse: base.Answer(
        errors.Conflict, "update conflict: {message}", errors.INVENTORY_INUSE
    ),
    exceptions.ConcurrentUpdate: _LOST,
}
_DELETE_ALL: base.Answers = {
    exceptions.ConcurrentUpdate: base.Answer(
        errors.Conflict,
        "Unable to delete inventory for resource provider {provider} because the inventory "
        "was updated by another process. Please retry your request.",
        errors.CONCURRENT_UPDATE,
    ),
}
_UPDATE: base.Answers = {
    exceptions.InvalidCapacity: _UNUSABLE,
    exceptions.NoInventoryOfClass: base.Answer(
        errors.BadRequest,
        "No inventory record with resource class for resource provider {provider}: {message}",
    ),
    exceptions.ConcurrentUpdate: _LOST,
}
_DELETE: base.Answers = {
    exceptions.NotFound: base.Answer(
        errors.NotFound, "No inventory of class {rc} found for delete: {message}"
    ),
    exceptions.Conflict: base.Answer(
        errors.Conflict,
        "Unable to delete inventory of class {rc}: {message}",
        errors.CONCURRENT_UPDATE,
    ),
}


def _reserved_may_equal_total(req: falcon.Request) -> bool:
    return base.version(req) >= mv.RESERVED_EQUALS_TOTAL


def _write_one(
    resource: base.Resource,
    req: falcon.Request,
    write: Callable[..., int],
    answers: base.Answers,
    provider: rp_obj.Provider,
    rc: str,
    record: dict[str, Any],
) -> int:
    """Add or update (``write``) one class's inventory; its errors answered by ``answers``."""
    with base.answering(answers, provider=provider.uuid):
        return write(
            resource.deps.engine,
            provider,
            rc,
            record,
            reserved_may_equal_total=_reserved_may_equal_total(req),
        )


def _check_generation(provider: rp_obj.Provider, data: dict) -> None:
    if data["resource_provider_generation"] != provider.generation:
        raise errors.Conflict(_GENERATION_CONFLICT, code=errors.CONCURRENT_UPDATE)


def _send_one(
    req: falcon.Request,
    resp: falcon.Response,
    record: dict[str, Any],
    generation: int,
    last_modified: datetime.datetime | None,
    status: int = 200,
) -> None:
    body = dict(record)
    if generation:  # upstream leaves a zero generation out
        body["resource_provider_generation"] = generation
    base.send_json(resp, body, status)
    base.set_cache_headers(req, resp, last_modified)


class Inventories(base.Resource):
    """The whole inventory of a provider."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        base.check_accept(req)
        self.authorize(req, "placement:resource_providers:inventories:list")
        provider = load_provider(self, uuid, explain=True)
        inventories = inv_obj.list_for_provider(self.deps.engine, provider)
        base.send_json(
            resp,
            {
                "inventories": {rc: inv.record for rc, inv in inventories.items()},
                "resource_provider_generation": provider.generation,
            },
        )
        base.set_cache_headers(
            req, resp, base.latest([i.last_modified for i in inventories.values()])
        )

    def on_post(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        base.require_json_content(req)
        self.authorize(req, "placement:resource_providers:inventories:create")
        provider = load_provider(self, uuid)
        data = base.json_body(req, schema.POST_ONE)
        rc = data["resource_class"]
        generation = _write_one(self, req, inv_obj.add_inventory, _CREATE, provider, rc, data)
        resp.set_header(
            "Location", base.absolute_url(req, f"{provider_path(provider.uuid)}/inventories/{rc}")
        )
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow(), 201)

    def on_put(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        base.require_json_content(req)
        self.authorize(req, "placement:resource_providers:inventories:update")
        provider = load_provider(self, uuid)
        data = base.json_body(req, schema.PUT_ALL)
        _check_generation(provider, data)
        records = {rc: inv_obj.with_defaults(r) for rc, r in data["inventories"].items()}
        with base.answering(_REPLACE, provider=provider.uuid):
            generation = inv_obj.set_inventories(
                self.deps.engine,
                provider,
                records,
                reserved_may_equal_total=_reserved_may_equal_total(req),
            )
        base.send_json(resp, {"inventories": records, "resource_provider_generation": generation})
        base.set_cache_headers(req, resp, base.utcnow() if records else None)

    def on_delete(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        if base.version(req) < mv.DELETE_ALL_INVENTORIES:
            # Upstream's version gate: no Allow header and no message.
            raise errors.MethodNotAllowed(message="")
        self.authorize(req, "placement:resource_providers:inventories:delete")
        provider = load_provider(self, uuid)
        with base.answering(_DELETE_ALL, provider=provider.uuid):
            inv_obj.delete_all(self.deps.engine, provider)
        base.send_empty(resp, 204)


class Inventory(base.Resource):
    """The inventory of one resource class on a provider."""

    def on_get(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, resource_class: str
    ) -> None:
        base.check_accept(req)
        self.authorize(req, "placement:resource_providers:inventories:show")
        provider = load_provider(self, uuid, explain=True)
        inventory = inv_obj.list_for_provider(self.deps.engine, provider).get(resource_class)
        if inventory is None:
            raise errors.NotFound(f"No inventory of class {resource_class} for {uuid}")
        _send_one(req, resp, inventory.record, provider.generation, inventory.last_modified)

    def on_put(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, resource_class: str
    ) -> None:
        base.require_json_content(req)
        self.authorize(req, "placement:resource_providers:inventories:update")
        provider = load_provider(self, uuid)
        data = base.json_body(req, schema.PUT_ONE)
        _check_generation(provider, data)
        generation = _write_one(
            self, req, inv_obj.update_inventory, _UPDATE, provider, resource_class, data
        )
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow())

    def on_delete(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, resource_class: str
    ) -> None:
        self.authorize(req, "placement:resource_providers:inventories:delete")
        provider = load_provider(self, uuid)
        with base.answering(_DELETE, rc=resource_class):
            inv_obj.delete_inventory(self.deps.engine, provider, resource_class)
        base.send_empty(resp, 204)
