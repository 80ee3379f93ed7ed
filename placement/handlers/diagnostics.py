"""``GET /diagnostics/allocation_candidates``: the candidates, and why there are no others.

Outside the Placement API's namespace (an addition of this service, for the
console's "why no candidate?" page and for scripts), but asked exactly as
``GET /allocation_candidates`` is: the same query string, microversion
header, checks in the same order, policy rule and 400s. The answer is that
route's body at the request's microversion plus the engine's explanation
(:mod:`placement.candidates.explain`).
"""

from __future__ import annotations

import json

import falcon

from placement import microversion as mv
from placement import policy
from placement.candidates import engine, explain
from placement.candidates import request as candidate_request
from placement.handlers import allocation_candidate, base, preamble
from placement.schemas import allocation_candidate as schema


class CandidateDiagnostics(base.Resource):
    """``/diagnostics/allocation_candidates``."""

    ANSWERS = allocation_candidate.AllocationCandidates.ANSWERS

    @preamble.responder(
        policy.ALLOCATION_CANDIDATES_LIST,
        preamble.since(mv.ALLOCATION_CANDIDATES),
        preamble.accepts_json,
        query=schema.QUERY,
        returns={200: schema.DIAGNOSTICS},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        wanted = candidate_request.parse(base.query_pairs(req), base.version(req))
        found = engine.find(self.deps.engine, wanted, engine.Settings.from_conf(self.deps.conf))
        body = json.loads(found)
        body.update(explain.explain(self.deps.engine, wanted))
        base.send_json(resp, body)
        base.set_cache_headers(req, resp, base.utcnow())
