"""``POST /v1/webhooks/{audit}`` (1.4): trigger a run of an EVENT audit (upstream's
alarm URL); the audit runner runs it, so the answer is 202 with no body."""

from __future__ import annotations

import falcon

from placement import microversion as mv
from placement import policy
from placement.handlers import base
from placement.handlers.actionplans.preamble import Lookup, responder
from placement.objects.actionplans import audits
from placement.schemas import NO_BODY


class Webhook(base.Resource):
    """``/v1/webhooks/{ident}``: an audit by id, uuid or name; any body is ignored."""

    @responder(
        policy.WEBHOOK_TRIGGER,
        minimum=mv.WEBHOOKS,
        lookup=Lookup(audits.get_audit),
        returns={202: NO_BODY},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, found: audits.Audit) -> None:
        audits.trigger_event(self.deps.engine, found.uuid)
        base.send_empty(resp, 202)
