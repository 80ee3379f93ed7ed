"""``audit create -a <template>``: what an audit takes from its template (doc/watcher-api.md §3.7).

The client resolves a template's name to its uuid with a GET and posts
``audit_template_uuid``. The audit then takes the template's goal, its
strategy and scope unless the body names its own, and its default parameters
under the body's parameters (the body's win, key by key), whatever the
version, as upstream. Without a name and a strategy from either, the audit is
named after the template. The result is an ordinary audit request for the
object layer, checked there as any other (the parameters against the strategy).
"""

from __future__ import annotations

import dataclasses

from sqlalchemy.engine import Engine

from placement import db
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.errors import NotFound, UnknownTemplate
from placement.db.tables import utcnow
from placement.objects.actionplans import templates


def apply_template(engine: Engine, request: AuditRequest) -> AuditRequest:
    """``request`` with its ``audit_template_uuid`` (if any) replaced by what the template
    gives; UnknownTemplate (400, as upstream) for a template that is not live."""
    ident = request.audit_template_uuid
    if ident is None:
        return request
    try:
        with db.reader(engine) as conn:
            template = templates.get(conn, ident)
    except NotFound:
        raise UnknownTemplate() from None
    strategy = request.strategy
    if strategy is None:
        strategy = template.strategy_uuid
    name = request.name
    if not name and strategy is None:
        name = f"{template.name}-{utcnow().isoformat()}"
    return dataclasses.replace(
        request,
        audit_template_uuid=None,
        goal=template.goal_uuid,
        strategy=strategy,
        name=name,
        scope=template.scope or (),
        parameters={**(template.default_parameters or {}), **request.parameters},
    )
