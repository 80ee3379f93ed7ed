"""The answers of Watcher's version documents: ``/`` on its own endpoint, and ``/v1``."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import Schema, Versioned, closed, obj, requiring

_TEXT: Schema = {"type": "string"}
_LINKS: Schema = {
    "type": "array",
    "items": obj({"href": _TEXT, "rel": _TEXT, "type": _TEXT}, "href", "rel"),
}
_VERSION = closed(id=_TEXT, status=_TEXT, max_version=_TEXT, min_version=_TEXT, links=_LINKS)

#: ``GET /`` on Watcher's endpoint.
VERSIONS = Versioned(
    closed(
        name=_TEXT,
        description=_TEXT,
        versions={"type": "array", "items": _VERSION},
        default_version=_VERSION,
    )
)

#: ``GET /v1``: a pair of links per collection, ``data_model`` from 1.3, ``webhooks`` from 1.4.
V1 = Versioned(
    closed(
        id=_TEXT,
        media_types={"type": "array", "items": closed(base=_TEXT, type=_TEXT)},
        audit_templates=_LINKS,
        audits=_LINKS,
        actions=_LINKS,
        action_plans=_LINKS,
        scoring_engines=_LINKS,
        services=_LINKS,
        links=_LINKS,
    ),
    (mv.DATA_MODEL, requiring(data_model=_LINKS)),
    (mv.WEBHOOKS, requiring(webhooks=_LINKS)),
)
