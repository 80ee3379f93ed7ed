"""``/v1/actions``: list, show, and (1.5+) skip a pending action with PATCH."""

from __future__ import annotations

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Body, Lookup, responder
from placement.objects.actionplans import actions
from placement.schemas.actionplans import bodies, query, responses


class _Collection(listing.Collection[actions.Action]):
    """Actions are filtered by plan or by audit, never both."""

    def check(self, params: dict[str, str]) -> None:
        if "action_plan_uuid" in params and "audit_uuid" in params:
            raise errors.BadRequest("Filtering actions on both audit and action-plan is prohibited")


ACTIONS = _Collection(
    "actions", query.ACTIONS, actions.list_actions, render.action, responses.ACTION
)
_ACTION = Lookup(actions.get_action, uuid_field="action_uuid")
_SHOWN = {200: responses.ACTION[1]}

Actions, ActionsDetail = listing.resources(ACTIONS, policy.ACTION_GET_ALL, policy.ACTION_DETAIL)


class Action(base.Resource):
    """``/v1/actions/{uuid}`` (uuids only)."""

    @responder(policy.ACTION_GET, lookup=_ACTION, returns=_SHOWN)
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: actions.Action) -> None:
        base.send_json(resp, render.action(req, found, detail=True))

    @responder(
        policy.ACTION_UPDATE,
        lookup=_ACTION,
        minimum=mv.ACTION_UPDATE,
        body=Body(bodies.ACTION_PATCH),
        returns=_SHOWN,
    )
    def on_patch(
        self, req: falcon.Request, resp: falcon.Response, found: actions.Action, data: list
    ) -> None:
        # Operations apply in order: the last one on each path wins.
        values = {operation["path"]: operation["value"] for operation in data}
        action = actions.update_action(
            self.deps.engine,
            found.uuid,
            state=values.get("/state"),
            reason=values.get("/status_message"),
        )
        base.send_json(resp, render.action(req, action, detail=True))
