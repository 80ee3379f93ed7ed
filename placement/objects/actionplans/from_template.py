"""``audit create -a <template>``: what an audit takes from its template (doc/watcher-api.md §3.7).

The client resolves a template's name to its uuid with a GET and posts
``audit_template_uuid``. The audit then takes the template's goal, its
strategy and scope unless the body names its own, and its default parameters
under the body's parameters (the body's win, key by key), whatever the
version, as upstream. Without a name and a strategy from either, the audit is
named after the template. The result is an ordinary audit body for the object
layer, checked there as any other (the parameters against the strategy).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine

from placement import db
from placement.actionplans.errors import NotFound, UnknownTemplate
from placement.db.tables import utcnow
from placement.objects.actionplans import templates


def apply_template(engine: Engine, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with its ``audit_template_uuid`` (if any) replaced by what the template
    gives; UnknownTemplate (400, as upstream) for a template that is not live."""
    ident = fields.get("audit_template_uuid")
    if ident is None:
        return fields
    try:
        with db.reader(engine) as conn:
            template = templates.get(conn, ident)
    except NotFound:
        raise UnknownTemplate() from None
    audit = {key: value for key, value in fields.items() if key != "audit_template_uuid"}
    audit["goal"] = template.goal_uuid
    if audit.get("strategy") is None and template.strategy_uuid is not None:
        audit["strategy"] = template.strategy_uuid
    audit.setdefault("scope", template.scope)
    if template.default_parameters:
        audit["parameters"] = {**template.default_parameters, **(audit.get("parameters") or {})}
    if not audit.get("name") and audit.get("strategy") is None:
        audit["name"] = f"{template.name}-{utcnow().isoformat()}"
    return audit
