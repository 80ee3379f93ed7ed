"""The console's JSON routes under ``/console/api/``: what its pages need
that the Placement API would answer only in thousands of requests.

They sit behind the same authentication and policy as every route, and
answer errors in the Placement error document.
"""

from __future__ import annotations

from typing import ClassVar

import falcon

from placement import errors, filters, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.objects import capacity, exceptions
from placement.schemas import console as schema


def _all_values(req: falcon.Request, key: str) -> list[str]:
    """Every value of a repeatable key, in request order (the schema saw the last)."""
    return [value for name, value in base.query_pairs(req) if name == key]


class Capacity(base.Resource):
    """``GET /console/api/capacity``: a page of provider trees with their usage.

    ``required`` and ``member_of`` take provider listing's grammar at the
    latest microversion (repeatable, ``!`` and ``in:``); whatever version the
    request names, this route answers the same.
    """

    ANSWERS: ClassVar[base.Answers] = {
        exceptions.TraitNotFound: base.Answer(errors.BadRequest),
        exceptions.ResourceClassNotFound: base.Answer(errors.BadRequest),
    }

    @preamble.responder(
        policy.CONSOLE_CAPACITY,
        preamble.accepts_json,
        query=schema.CAPACITY_QUERY,
        returns={200: schema.CAPACITY},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        query = capacity.CapacityQuery(
            name=params.get("name") or None,
            traits=filters.parse_required(_all_values(req, "required"), mv.MAX_VERSION),
            member_of=filters.parse_member_of(_all_values(req, "member_of"), mv.MAX_VERSION),
            resource_class=params.get("resource_class"),
            fullest_first=params.get("sort") == "fullest",
            limit=int(params.get("limit", schema.DEFAULT_LIMIT)),
            offset=int(params.get("offset", 0)),
        )
        base.send_json(resp, capacity.capacity_page(self.deps.engine, query))
        resp.set_header("Cache-Control", "no-cache")
