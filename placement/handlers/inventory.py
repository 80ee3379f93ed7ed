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
from placement.handlers import base
from placement.handlers.resource_provider import PROVIDER, provider_lookup, provider_path
from placement.objects import inventory as inv_obj
from placement.objects import resource_provider as rp_obj
from placement.objects.resource_provider import Provider
from placement.schemas import inventory as schema

_GENERATION_CONFLICT = "resource provider generation conflict"

#: The provider; a 404 repeats the reason, as upstream does on reads.
_EXPLAINED_PROVIDER = provider_lookup(explain=True)

#: Before 1.5 ``DELETE .../inventories`` is refused by upstream's version gate,
#: a 405 with no ``Allow`` header and no message.
_SINCE_DELETE_ALL = base.since(
    mv.DELETE_ALL_INVENTORIES, lambda _: errors.MethodNotAllowed(message="")
)


def _reserved_may_equal_total(req: Request) -> bool:
    return base.version(req) >= mv.RESERVED_EQUALS_TOTAL


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

    @base.responder(policy.RP_INVENTORIES_LIST, base.accepts_json, lookup=_EXPLAINED_PROVIDER)
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

    @base.responder(
        policy.RP_INVENTORIES_CREATE, base.sends_json, lookup=PROVIDER, body=schema.POST_ONE
    )
    def on_post(
        self, req: Request, resp: Response, uuid: str, provider: Provider, data: dict
    ) -> None:
        rc = data["resource_class"]
        try:
            generation = inv_obj.add_inventory(
                self.deps.engine,
                provider,
                rc,
                data,
                reserved_may_equal_total=_reserved_may_equal_total(req),
            )
        except rp_obj.GenerationConflict as exc:
            raise errors.Conflict(
                f"Update conflict: {exc.message}", code=errors.CONCURRENT_UPDATE
            ) from None
        except errors.BadRequest as exc:
            raise errors.BadRequest(
                f"Unable to create inventory for resource provider {provider.uuid}: {exc.message}"
            ) from None
        except errors.Conflict as exc:
            raise errors.Conflict(f"Update conflict: {exc.message}", code=exc.code) from None
        resp.set_header(
            "Location", base.absolute_url(req, f"{provider_path(provider.uuid)}/inventories/{rc}")
        )
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow(), 201)

    @base.responder(
        policy.RP_INVENTORIES_UPDATE, base.sends_json, lookup=PROVIDER, body=schema.PUT_ALL
    )
    def on_put(
        self, req: Request, resp: Response, uuid: str, provider: Provider, data: dict
    ) -> None:
        _check_generation(provider, data)
        records = {rc: inv_obj.with_defaults(r) for rc, r in data["inventories"].items()}
        try:
            generation = inv_obj.set_inventories(
                self.deps.engine,
                provider,
                records,
                reserved_may_equal_total=_reserved_may_equal_total(req),
            )
        except inv_obj.InvalidCapacity as exc:
            raise errors.BadRequest(
                f"Unable to update inventory for resource provider {provider.uuid}: {exc.message}"
            ) from None
        except errors.BadRequest as exc:
            raise errors.BadRequest(
                f"Unknown resource class in inventory for resource provider "
                f"{provider.uuid}: {exc.message}"
            ) from None
        except errors.Conflict as exc:  # in use, or the generation moved meanwhile
            raise errors.Conflict(f"update conflict: {exc.message}", code=exc.code) from None
        base.send_json(resp, {"inventories": records, "resource_provider_generation": generation})
        base.set_cache_headers(req, resp, base.utcnow() if records else None)

    @base.responder(policy.RP_INVENTORIES_DELETE, _SINCE_DELETE_ALL, lookup=PROVIDER)
    def on_delete(self, req: Request, resp: Response, uuid: str, provider: Provider) -> None:
        try:
            inv_obj.delete_all(self.deps.engine, provider)
        except rp_obj.GenerationConflict:
            raise errors.Conflict(
                f"Unable to delete inventory for resource provider {provider.uuid} because "
                "the inventory was updated by another process. Please retry your request.",
                code=errors.CONCURRENT_UPDATE,
            ) from None
        base.send_empty(resp, 204)


class Inventory(base.Resource):
    """The inventory of one resource class on a provider."""

    @base.responder(policy.RP_INVENTORIES_SHOW, base.accepts_json, lookup=_EXPLAINED_PROVIDER)
    def on_get(
        self, req: Request, resp: Response, uuid: str, resource_class: str, provider: Provider
    ) -> None:
        inventory = inv_obj.list_for_provider(self.deps.engine, provider).get(resource_class)
        if inventory is None:
            raise errors.NotFound(f"No inventory of class {resource_class} for {uuid}")
        _send_one(req, resp, inventory.record, provider.generation, inventory.last_modified)

    @base.responder(
        policy.RP_INVENTORIES_UPDATE, base.sends_json, lookup=PROVIDER, body=schema.PUT_ONE
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
        try:
            generation = inv_obj.update_inventory(
                self.deps.engine,
                provider,
                resource_class,
                data,
                reserved_may_equal_total=_reserved_may_equal_total(req),
            )
        except inv_obj.InvalidCapacity as exc:
            raise errors.BadRequest(
                f"Unable to update inventory for resource provider {provider.uuid}: {exc.message}"
            ) from None
        except inv_obj.NoInventoryOfClass as exc:
            raise errors.BadRequest(
                f"No inventory record with resource class for resource "
                f"provider {provider.uuid}: {exc.message}"
            ) from None
        except rp_obj.GenerationConflict as exc:
            raise errors.Conflict(
                f"update conflict: {exc.message}", code=errors.CONCURRENT_UPDATE
            ) from None
        _send_one(req, resp, inv_obj.with_defaults(data), generation, base.utcnow())

    @base.responder(policy.RP_INVENTORIES_DELETE, lookup=PROVIDER)
    def on_delete(
        self, req: Request, resp: Response, uuid: str, resource_class: str, provider: Provider
    ) -> None:
        try:
            inv_obj.delete_inventory(self.deps.engine, provider, resource_class)
        except errors.NotFound as exc:
            raise errors.NotFound(
                f"No inventory of class {resource_class} found for delete: {exc.message}"
            ) from None
        except errors.Conflict as exc:  # in use, or the generation moved meanwhile
            raise errors.Conflict(
                f"Unable to delete inventory of class {resource_class}: {exc.message}",
                code=errors.CONCURRENT_UPDATE,
            ) from None
        base.send_empty(resp, 204)
