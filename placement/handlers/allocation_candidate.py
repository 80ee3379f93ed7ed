"""``GET /allocation_candidates`` (1.10+): which providers could serve a request now."""

from __future__ import annotations

from typing import ClassVar

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.candidates import engine
from placement.candidates import request as candidate_request
from placement.handlers import base, preamble
from placement.objects import exceptions
from placement.schemas import allocation_candidate as schema

#: The route arrived in 1.10: below, it is a 404.
_SINCE = preamble.since(mv.ALLOCATION_CANDIDATES)


class AllocationCandidates(base.Resource):
    """``/allocation_candidates``."""

    #: The request names unknown traits or classes: the query is wrong.
    ANSWERS: ClassVar[base.Answers] = {exceptions.NameNotFound: base.Answer(errors.BadRequest)}

    @preamble.responder(
        policy.ALLOCATION_CANDIDATES_LIST,
        _SINCE,
        preamble.accepts_json,
        query=schema.QUERY,
        returns={200: schema.RESPONSE},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        # The schema saw the last value of each key; the parser reads them all.
        wanted = candidate_request.parse(base.query_pairs(req), base.version(req))
        # The engine writes the JSON itself: answers can be large and repetitive.
        resp.data = engine.find(self.deps.engine, wanted, engine.Settings.from_conf(self.deps.conf))
        resp.content_type = "application/json"
        base.set_cache_headers(req, resp, base.utcnow())
