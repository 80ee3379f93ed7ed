"""``POST /reshaper`` (1.30): move inventory and allocations in one step.

Policy ``placement:reshaper:reshape`` defaults to the service role only.
"""

from __future__ import annotations

from typing import ClassVar

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.handlers.allocation import consumer_writes
from placement.objects import exceptions, reshaper
from placement.schemas import NO_BODY
from placement.schemas import reshaper as schema

_UPDATE_CONFLICT = "update conflict: {message}"


class Reshaper(base.Resource):
    ANSWERS: ClassVar[base.Answers] = {
        exceptions.ResourceClassNotFound: base.Answer(
            errors.BadRequest, "malformed reshaper data: {message}"
        ),
        exceptions.ProviderNotFound: base.Answer(
            errors.BadRequest, code=errors.RESOURCE_PROVIDER_NOT_FOUND
        ),
        exceptions.InventoryInUse: base.Answer(
            errors.Conflict, _UPDATE_CONFLICT, errors.INVENTORY_INUSE
        ),
        exceptions.InvalidAllocation: base.Answer(
            errors.Conflict, "Unable to allocate inventory: {message}"
        ),
        exceptions.ConcurrentUpdate: base.Answer(
            errors.Conflict, _UPDATE_CONFLICT, errors.CONCURRENT_UPDATE
        ),
    }

    @preamble.responder(
        policy.RESHAPER_RESHAPE,
        preamble.since(mv.RESHAPER),
        preamble.sends_json,
        body=schema.RESHAPE,
        returns={204: NO_BODY},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        want = base.version(req)
        inventories = {
            uuid: reshaper.InventoryChange(
                body["resource_provider_generation"], body["inventories"]
            )
            for uuid, body in data["inventories"].items()
        }
        reshaper.reshape(
            self.deps.engine,
            inventories,
            consumer_writes(self.deps.conf, data["allocations"], want),
            attempts=self.deps.conf.placement.allocation_conflict_retry_count,
        )
        base.send_empty(resp, 204)
