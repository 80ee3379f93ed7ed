"""Watcher's version documents: ``/`` on its own endpoint, and ``/v1``
(doc/watcher-api.md §1.1, §1.2).

Neither has a policy rule, as upstream's: ``/`` needs no token (the auth
layers let the root through), ``/v1`` a valid one. Every ``href`` is built
on the request's scheme, host and ``SCRIPT_NAME`` (``render.host_url``), so
under ``/infra-optim`` each keeps that prefix.
"""

from __future__ import annotations

import falcon

from placement import microversion as mv
from placement.handlers import base
from placement.handlers.actionplans import render
from placement.handlers.actionplans.preamble import responder
from placement.schemas.actionplans import root as schema

#: Upstream's words for its API.
NAME = "OpenStack Watcher API"
DESCRIPTION = (
    "Watcher is an OpenStack project which aims to improve physical resources usage "
    "through better VM placement."
)
DESCRIBED_BY = "http://docs.openstack.org/developer/watcher/dev/api-spec-v1.html"
MEDIA_TYPE = {"base": "application/json", "type": "application/vnd.openstack.watcher.v1+json"}

#: The collections ``/v1`` links to, in upstream's order, each from the version
#: that shows it (no goals or strategies: upstream lists neither).
COLLECTIONS = (
    ("audit_templates", mv.INFRA_OPTIM_MIN_VERSION),
    ("audits", mv.INFRA_OPTIM_MIN_VERSION),
    ("data_model", mv.DATA_MODEL),
    ("actions", mv.INFRA_OPTIM_MIN_VERSION),
    ("action_plans", mv.INFRA_OPTIM_MIN_VERSION),
    ("scoring_engines", mv.INFRA_OPTIM_MIN_VERSION),
    ("services", mv.INFRA_OPTIM_MIN_VERSION),
    ("webhooks", mv.WEBHOOKS),
)


def _self(req: falcon.Request) -> dict[str, str]:
    return {"href": f"{render.host_url(req)}/v1/", "rel": "self"}


class Versions(base.Resource):
    """``GET /`` on Watcher's endpoint: the one version, v1, and its range. No
    version is negotiated, so no ``OpenStack-API-*`` header is sent."""

    @responder(None, returns={200: schema.VERSIONS})
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        version = {
            "id": "v1",
            "status": "CURRENT",
            "max_version": str(mv.INFRA_OPTIM_MAX_VERSION),
            "min_version": str(mv.INFRA_OPTIM_MIN_VERSION),
            "links": [_self(req)],
        }
        base.send_json(
            resp,
            {
                "name": NAME,
                "description": DESCRIPTION,
                "versions": [version],
                "default_version": version,
            },
        )


class V1Root(base.Resource):
    """``GET /v1`` (and ``/v1/``): the media type, a pair of links per
    collection the negotiated version has, and the version's own links.

    Each pair's ``bookmark`` is its ``self``, under ``/v1``, as in every
    resource's links (``render.links``): upstream's drops ``/v1``, a path
    that would be Placement's on Placement's port.
    """

    @responder(None, returns={200: schema.V1})
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        version = base.version(req)
        doc: dict = {"id": "v1", "media_types": [MEDIA_TYPE]}
        for collection, since in COLLECTIONS:
            if version >= since:
                doc[collection] = render.links(req, collection, "")
        doc["links"] = [
            _self(req),
            {"href": DESCRIBED_BY, "rel": "describedby", "type": "text/html"},
        ]
        base.send_json(resp, doc)
