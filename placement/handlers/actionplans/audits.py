"""``/v1/audits``: create (a ONESHOT audit is planned here), list, show, change, delete."""

from __future__ import annotations

import falcon

from placement import actionplan_opts, datasources, policy
from placement.effects import registry
from placement.handlers import base
from placement.handlers.actionplans import audit_patch, listing, render
from placement.handlers.actionplans.audit_body import audit_request
from placement.handlers.actionplans.preamble import Body, Lookup, responder
from placement.objects.actionplans import audits, from_template
from placement.schemas import NO_BODY
from placement.schemas.actionplans import bodies, query, responses

AUDITS = listing.Collection(
    "audits", query.AUDITS, audits.list_audits, render.audit, responses.AUDIT
)
_AUDIT = Lookup(audits.get_audit)

_AuditList, AuditsDetail = listing.resources(AUDITS, policy.AUDIT_GET_ALL, policy.AUDIT_DETAIL)


class Audits(base.Resource):
    """``/v1/audits``: the list, and POST to create."""

    on_get = _AuditList.on_get

    @responder(
        policy.AUDIT_CREATE,
        body=Body(bodies.AUDIT_CREATE, "audit_p"),
        returns={201: responses.AUDIT[1]},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        request = audit_request(data, base.version(req))
        request = from_template.apply_template(self.deps.engine, request)
        executor = registry.executor(self.deps.conf)
        installed = registry.installed_declarations(executor)
        options = actionplan_opts.planner_options(self.deps.conf, installed, executor)
        measure = datasources.measurer(self.deps.conf)
        audit = audits.create_audit(self.deps.engine, options, request, measure)
        resp.location = base.absolute_url(req, f"/v1/audits/{audit.uuid}")
        base.send_json(resp, render.audit(req, audit, detail=True), 201)


class Audit(base.Resource):
    """``/v1/audits/{ident}``: by integer id, uuid or name."""

    @responder(policy.AUDIT_GET, lookup=_AUDIT, returns={200: responses.AUDIT[1]})
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: audits.Audit) -> None:
        base.send_json(resp, render.audit(req, found, detail=True))

    @responder(
        policy.AUDIT_UPDATE,
        lookup=_AUDIT,
        body=Body(bodies.AUDIT_PATCH),
        returns={200: responses.AUDIT[1]},
    )
    def on_patch(
        self, req: falcon.Request, resp: falcon.Response, found: audits.Audit, data: list
    ) -> None:
        changed = audits.update_audit(self.deps.engine, found.uuid, audit_patch.changes(data))
        base.send_json(resp, render.audit(req, changed, detail=True))

    @responder(policy.AUDIT_DELETE, lookup=_AUDIT, returns={204: NO_BODY})
    def on_delete(self, req: falcon.Request, resp: falcon.Response, found: audits.Audit) -> None:
        audits.delete_audit(self.deps.engine, found.uuid)
        base.send_empty(resp)
