"""``/resource_providers/{uuid}/inventories`` and ``.../inventories/{resource_class}``.

Write responses echo the records as the request gave them (defaults filled
in), not as re-read from the database, so JSON types survive the round trip.
"""

from __future__ import annotations

import datetime
from typing import Any

from falcon import Request, Response

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.handlers.resource_provider import PROVIDER, provider_lookup, provider_path
from placement.objects import exceptions
from placement.objects import inventory as inv_obj
from placement.objects.resource_provider import Provider
from placement.schemas import NO_BODY
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

#: The provider; a 404 repeats the reason, as upstream does on reads.
_EXPLAINED_PROVIDER = provider_lookup(explain=True)

_INVENTORIES = {200: schema.INVENTORIES}
_INVENTORY = {200: schema.INVENTORY}
_DELETED = {204: NO_BODY}

#: Before 1.5 ``DELETE .../inventories`` is refused by upstream's version gate,
#: a 405 with no ``Allow`` header and no message.
_SINCE_DELETE_ALL = preamble.since(
    mv.DELETE_ALL_INVENTORIES, lambda _: errors.MethodNotAllowed(message="")
)


def _reserved_may_equal_total(req: Request) -> bool:
    return base.version(req) >= mv.RESERVED_EQUALS_TOTAL


def _write_one(
    resource: base.Resource,
    req: Request,
    write: inv_obj.OneClassWrite,
    answers: base.Answers,
    provider: Provider,
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


def _check_generation(provider: Provider, data: dict) -> None:
    if data["resource_provider_generation"] != provider.generation:
        raise errors.Conflict(_GENERATION_CONFLICT, code=errors.CONCURRENT_UPDATE)


def _send_one(
    req: Request,
    resp: Response,
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

    @preamble.responder(
        policy.RP_INVENTORIES_LIST,
        preamble.accepts_json,
        lookup=_EXPLAINED_PROVIDER,
        returns=_INVENTORIES,
    )
    def on_get(self, req: Request, resp: Response, uuid: str, provider: Provider) -> None:
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

    @preamble.responder(
        policy.RP_INVENTORIES_CREATE,
        preamble.sends_json,
        lookup=PROVIDER,
        body=schema.POST_ONE,
        returns={201: schema.INVENTORY},
    )
    def on_post(
        self, req: Request, resp: Response, uuid: str, provider: Provider, data: dict
    ) -> None:
        rc = data["resource_class"]
        generation = _write_one(self, req, inv_obj.add_inventory, _CREATE, provider, rc, data)
        resp.set_header(
            "Location", base.absolute_url(req, f"{provider_path(provider.uuid)}/inventories/{rc}")
        )
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow(), 201)

    @preamble.responder(
        policy.RP_INVENTORIES_UPDATE,
        preamble.sends_json,
        lookup=PROVIDER,
        body=schema.PUT_ALL,
        returns=_INVENTORIES,
    )
    def on_put(
        self, req: Request, resp: Response, uuid: str, provider: Provider, data: dict
    ) -> None:
        # Upstream's schema checks only the records under keys shaped like class
        # names; the others must be records too (then they are unknown classes).
        for record in data["inventories"].values():
            base.validate_body(record, schema.RECORD)
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

    @preamble.responder(
        policy.RP_INVENTORIES_DELETE, _SINCE_DELETE_ALL, lookup=PROVIDER, returns=_DELETED
    )
    def on_delete(self, req: Request, resp: Response, uuid: str, provider: Provider) -> None:
        with base.answering(_DELETE_ALL, provider=provider.uuid):
            inv_obj.delete_all(self.deps.engine, provider)
        base.send_empty(resp, 204)


class Inventory(base.Resource):
    """The inventory of one resource class on a provider."""

    @preamble.responder(
        policy.RP_INVENTORIES_SHOW,
        preamble.accepts_json,
        lookup=_EXPLAINED_PROVIDER,
        returns=_INVENTORY,
    )
    def on_get(
        self, req: Request, resp: Response, uuid: str, resource_class: str, provider: Provider
    ) -> None:
        inventory = inv_obj.list_for_provider(self.deps.engine, provider).get(resource_class)
        if inventory is None:
            raise errors.NotFound(f"No inventory of class {resource_class} for {uuid}")
        _send_one(req, resp, inventory.record, provider.generation, inventory.last_modified)

    @preamble.responder(
        policy.RP_INVENTORIES_UPDATE,
        preamble.sends_json,
        lookup=PROVIDER,
        body=schema.PUT_ONE,
        returns=_INVENTORY,
    )
    def on_put(
        self,
        req: Request,
        resp: Response,
        uuid: str,
        resource_class: str,
        provider: Provider,
        data: dict,
    ) -> None:
        _check_generation(provider, data)
        generation = _write_one(
            self, req, inv_obj.update_inventory, _UPDATE, provider, resource_class, data
        )
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow())

    @preamble.responder(policy.RP_INVENTORIES_DELETE, lookup=PROVIDER, returns=_DELETED)
    def on_delete(
        self, req: Request, resp: Response, uuid: str, resource_class: str, provider: Provider
    ) -> None:
        with base.answering(_DELETE, rc=resource_class):
            inv_obj.delete_inventory(self.deps.engine, provider, resource_class)
        base.send_empty(resp, 204)
