"""``/v1/scoring_engines``: list, ``/detail`` and show of the (empty) scoring engines."""

from __future__ import annotations

from typing import Any

import falcon

from placement import policy
from placement.handlers import base
from placement.handlers.actionplans import listing
from placement.handlers.actionplans.preamble import Lookup, responder
from placement.objects.actionplans import paging, scoring_engines
from placement.schemas.actionplans import query, responses


def _render(req: falcon.Request, row: paging.Row, detail: bool) -> dict[str, Any]:
    raise AssertionError("there is no scoring engine to render")  # pragma: no cover


SCORING_ENGINES = listing.Collection(
    "scoring_engines",
    query.SCORING_ENGINES,
    scoring_engines.list_scoring_engines,
    _render,
    responses.SCORING_ENGINE,
)

ScoringEngines, ScoringEnginesDetail = listing.resources(
    SCORING_ENGINES, policy.SCORING_ENGINE_GET_ALL, policy.SCORING_ENGINE_DETAIL
)


class ScoringEngine(base.Resource):
    """``/v1/scoring_engines/{ident}``: every name is unknown (404)."""

    @responder(
        policy.SCORING_ENGINE_GET,
        lookup=Lookup(scoring_engines.get_scoring_engine),
        returns={200: responses.SCORING_ENGINE[1]},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: paging.Row) -> None:
        raise AssertionError("get_scoring_engine finds nothing")  # pragma: no cover
