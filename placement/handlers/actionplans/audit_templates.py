"""``/v1/audit_templates``: create, list, show, change (JSON-Patch), delete."""

from __future__ import annotations

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.actionplans import template_patch
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Body, Lookup, responder
from placement.objects.actionplans import templates
from placement.schemas import NO_BODY
from placement.schemas.actionplans import bodies, query, responses

AUDIT_TEMPLATES = listing.Collection(
    "audit_templates",
    query.AUDIT_TEMPLATES,
    templates.list_templates,
    render.audit_template,
    responses.AUDIT_TEMPLATE,
)
_TEMPLATE = Lookup(templates.get_template)
_SHOWN = {200: responses.AUDIT_TEMPLATE[1]}

_TemplateList, AuditTemplatesDetail = listing.resources(
    AUDIT_TEMPLATES, policy.AUDIT_TEMPLATE_GET_ALL, policy.AUDIT_TEMPLATE_DETAIL
)


def _refuse_defaults_before_1_7(req: falcon.Request, given: bool) -> None:
    """Default parameters below 1.7 are 406, as upstream (an empty set is no default)."""
    if given and base.version(req) < mv.TEMPLATE_DEFAULT_PARAMETERS:
        raise errors.NotAcceptable("Request not acceptable.")


class AuditTemplates(base.Resource):
    """``/v1/audit_templates``: the list, and POST to create."""

    on_get = _TemplateList.on_get

    @responder(
        policy.AUDIT_TEMPLATE_CREATE,
        body=Body(bodies.AUDIT_TEMPLATE_CREATE, "audit_template_postdata"),
        returns={201: responses.AUDIT_TEMPLATE[1]},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        _refuse_defaults_before_1_7(req, bool(data.get("default_parameters")))
        template = templates.create_template(self.deps.engine, data)
        resp.location = base.absolute_url(req, f"/v1/audit_templates/{template.uuid}")
        base.send_json(resp, render.audit_template(req, template, detail=True), 201)


class AuditTemplate(base.Resource):
    """``/v1/audit_templates/{ident}``: by integer id, uuid or name."""

    @responder(policy.AUDIT_TEMPLATE_GET, lookup=_TEMPLATE, returns=_SHOWN)
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, found: templates.AuditTemplate
    ) -> None:
        base.send_json(resp, render.audit_template(req, found, detail=True))

    @responder(
        policy.AUDIT_TEMPLATE_UPDATE,
        lookup=_TEMPLATE,
        body=Body(bodies.AUDIT_TEMPLATE_PATCH),
        returns=_SHOWN,
    )
    def on_patch(
        self,
        req: falcon.Request,
        resp: falcon.Response,
        found: templates.AuditTemplate,
        data: list,
    ) -> None:
        changes = template_patch.changes(data)
        _refuse_defaults_before_1_7(req, "default_parameters" in changes)
        template = templates.update_template(self.deps.engine, found.uuid, changes)
        base.send_json(resp, render.audit_template(req, template, detail=True))

    @responder(policy.AUDIT_TEMPLATE_DELETE, lookup=_TEMPLATE, returns={204: NO_BODY})
    def on_delete(
        self, req: falcon.Request, resp: falcon.Response, found: templates.AuditTemplate
    ) -> None:
        templates.delete_template(self.deps.engine, found.uuid)
        base.send_empty(resp)
