"""``/v1/goals`` and ``/v1/strategies``: the built-in catalog, read-only, and what each
strategy needs (``/v1/strategies/{ident}/state``)."""

from __future__ import annotations

import falcon

from placement import datasources, policy
from placement.actionplans.requirements import measures, strategy_state
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Lookup, responder
from placement.objects.actionplans import goals, strategies
from placement.schemas.actionplans import query, responses

GOALS = listing.Collection("goals", query.GOALS, goals.list_goals, render.goal, responses.GOAL)
STRATEGIES = listing.Collection(
    "strategies", query.STRATEGIES, strategies.list_strategies, render.strategy, responses.STRATEGY
)

Goals, GoalsDetail = listing.resources(GOALS, policy.GOAL_GET_ALL, policy.GOAL_DETAIL)
Strategies, StrategiesDetail = listing.resources(
    STRATEGIES, policy.STRATEGY_GET_ALL, policy.STRATEGY_DETAIL
)


class Goal(base.Resource):
    """``/v1/goals/{ident}``: by integer id, uuid or name."""

    @responder(policy.GOAL_GET, lookup=Lookup(goals.get_goal), returns={200: responses.GOAL[1]})
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: goals.Goal) -> None:
        base.send_json(resp, render.goal(req, found, detail=True))


class Strategy(base.Resource):
    """``/v1/strategies/{ident}``: by integer id, uuid or name."""

    @responder(
        policy.STRATEGY_GET,
        lookup=Lookup(strategies.get_strategy),
        returns={200: responses.STRATEGY[1]},
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, found: strategies.Strategy
    ) -> None:
        base.send_json(resp, render.strategy(req, found, detail=True))


class StrategyState(base.Resource):
    """``/v1/strategies/{ident}/state``: policy first, then the lookup (upstream's order)."""

    @responder(policy.STRATEGY_STATE, returns={200: responses.STRATEGY_STATE})
    def on_get(self, req: falcon.Request, resp: falcon.Response, ident: str) -> None:
        found = strategies.get_strategy(self.deps.engine, ident)
        datasource = datasources.state(self.deps.conf, found.name) if measures(found.name) else None
        base.send_json(resp, strategy_state(found.name, datasource))
