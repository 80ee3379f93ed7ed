"""``POST /reshaper`` (1.30): move inventory and allocations in one step.

Policy ``placement:reshaper:reshape`` defaults to the service role only.
"""

from __future__ import annotations

import falcon

from placement import errors
from placement import microversion as mv
from placement.handlers import base
from placement.handlers.allocation import consumer_writes
from placement.objects import allocation, reshaper
from placement.objects import consumer as consumer_obj
from placement.objects import inventory as inv_obj
from placement.schemas.reshaper import reshaper_schema


class Reshaper(base.Resource):
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        base.require_version(req, mv.RESHAPER)
        base.require_json_content(req)
        self.authorize(req, "placement:reshaper:reshape")
        want = base.version(req)
        data = base.json_body(req, reshaper_schema(want))
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
