"""``/v1/action_plans``: list, show, start, cancel (PATCH of ``/state``), delete."""

from __future__ import annotations

import falcon

from placement import policy
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Body, Lookup, responder
from placement.objects.actionplans import plans
from placement.schemas import NO_BODY
from placement.schemas.actionplans import bodies, query, responses

ACTION_PLANS = listing.Collection(
    "action_plans", query.ACTION_PLANS, plans.list_plans, render.action_plan, responses.ACTION_PLAN
)
_PLAN = Lookup(plans.get_plan, uuid_field="action_plan_uuid")
_SHOWN = {200: responses.ACTION_PLAN[1]}

ActionPlans, ActionPlansDetail = listing.resources(
    ACTION_PLANS, policy.ACTION_PLAN_GET_ALL, policy.ACTION_PLAN_DETAIL
)


class ActionPlan(base.Resource):
    """``/v1/action_plans/{uuid}`` (uuids only)."""

    @responder(policy.ACTION_PLAN_GET, lookup=_PLAN, returns=_SHOWN)
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: plans.ActionPlan) -> None:
        base.send_json(resp, render.action_plan(req, found, detail=True))

    @responder(
        policy.ACTION_PLAN_UPDATE,
        lookup=_PLAN,
        body=Body(bodies.ACTION_PLAN_PATCH),
        returns=_SHOWN,
    )
    def on_patch(
        self, req: falcon.Request, resp: falcon.Response, found: plans.ActionPlan, data: list
    ) -> None:
        # Operations apply in order, so the last one names the state asked for.
        plan = plans.update_state(self.deps.engine, found.uuid, data[-1]["value"])
        base.send_json(resp, render.action_plan(req, plan, detail=True))

    @responder(policy.ACTION_PLAN_DELETE, lookup=_PLAN, returns={204: NO_BODY})
    def on_delete(
        self, req: falcon.Request, resp: falcon.Response, found: plans.ActionPlan
    ) -> None:
        plans.delete_plan(self.deps.engine, found.uuid)
        base.send_empty(resp)


class ActionPlanStart(base.Resource):
    """``POST /v1/action_plans/{uuid}/start``: RECOMMENDED → PENDING (the body is ignored)."""

    @responder(policy.ACTION_PLAN_START, lookup=_PLAN, returns=_SHOWN)
    def on_post(self, req: falcon.Request, resp: falcon.Response, found: plans.ActionPlan) -> None:
        plan = plans.start_plan(self.deps.engine, found.uuid)
        base.send_json(resp, render.action_plan(req, plan, detail=True))
