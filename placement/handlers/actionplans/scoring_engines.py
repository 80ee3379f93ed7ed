"""``/v1/scoring_engines``: list, ``/detail`` and show of the scoring engines
(doc/watcher-api.md §10.2)."""

from __future__ import annotations

import falcon

from placement import policy
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Lookup, responder
from placement.objects.actionplans import scoring_engines
from placement.schemas.actionplans import query, responses

SCORING_ENGINES = listing.Collection(
    "scoring_engines",
    query.SCORING_ENGINES,
    scoring_engines.list_scoring_engines,
    render.scoring_engine,
    responses.SCORING_ENGINE,
)

ScoringEngines, ScoringEnginesDetail = listing.resources(
    SCORING_ENGINES, policy.SCORING_ENGINE_GET_ALL, policy.SCORING_ENGINE_DETAIL
)


class ScoringEngine(base.Resource):
    """``/v1/scoring_engines/{ident}``: by integer id, uuid or name."""

    @responder(
        policy.SCORING_ENGINE_GET,
        lookup=Lookup(scoring_engines.get_scoring_engine),
        returns={200: responses.SCORING_ENGINE[1]},
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, found: scoring_engines.ScoringEngine
    ) -> None:
        base.send_json(resp, render.scoring_engine(req, found, detail=True))
