"""``POST /reshaper`` (1.30): move inventory and allocations in one step.

Policy ``placement:reshaper:reshape`` defaults to the service role only.
"""

from __future__ import annotations

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base
from placement.handlers.allocation import consumer_writes
from placement.objects import allocation, reshaper
from placement.objects import consumer as consumer_obj
from placement.objects import inventory as inv_obj
from placement.schemas import reshaper as schema


class Reshaper(base.Resource):
    @base.responder(
        policy.RESHAPER_RESHAPE, base.since(mv.RESHAPER), base.sends_json, body=schema.RESHAPE
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        want = base.version(req)
        inventories = {
            uuid: reshaper.InventoryChange(
                body["resource_provider_generation"], body["inventories"]
            )
            for uuid, body in data["inventories"].items()
        }
        try:
            reshaper.reshape(
                self.deps.engine,
                inventories,
                consumer_writes(self.deps.conf, data["allocations"], want),
                attempts=self.deps.conf.placement.allocation_conflict_retry_count,
            )
        except allocation.UnknownResourceClass as exc:
            raise errors.BadRequest(f"malformed reshaper data: {exc.message}") from None
        except inv_obj.InventoryInUse as exc:
            raise errors.Conflict(
                f"update conflict: {exc.message}", code=errors.INVENTORY_INUSE
            ) from None
        except allocation.InvalidAllocation as exc:
            raise errors.Conflict(f"Unable to allocate inventory: {exc.message}") from None
        except consumer_obj.ConcurrentUpdate as exc:
            raise errors.Conflict(
                f"update conflict: {exc.message}", code=errors.CONCURRENT_UPDATE
            ) from None
        base.send_empty(resp, 204)
