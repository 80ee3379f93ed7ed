"""``GET /allocation_candidates`` (1.10+): which providers could serve a request now."""

from __future__ import annotations

from typing import ClassVar

import falcon

from placement import errors
from placement import microversion as mv
from placement.candidates import engine
from placement.candidates import request as candidate_request
from placement.handlers import base
from placement.objects import exceptions
from placement.schemas import allocation_candidate as schema


class AllocationCandidates(base.Resource):
    """``/allocation_candidates``."""

    #: The request names unknown traits or classes: the query is wrong.
    ANSWERS: ClassVar[base.Answers] = {exceptions.NameNotFound: base.Answer(errors.BadRequest)}

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        base.require_version(req, mv.ALLOCATION_CANDIDATES)
        base.check_accept(req)
        self.authorize(req, "placement:allocation_candidates:list")
        want = base.version(req)
        base.validate_query(req, schema.query_schema(want))
        wanted = candidate_request.parse(base.query_pairs(req), want)
        # The engine writes the JSON itself: answers can be large and repetitive.
        resp.data = engine.find(self.deps.engine, wanted, engine.Settings.from_conf(self.deps.conf))
        resp.content_type = "application/json"
        base.set_cache_headers(req, resp, base.utcnow())
