"""``GET /``: the version document; needs no authentication."""

from __future__ import annotations

import falcon

from placement import microversion as mv
from placement.handlers import base, preamble
from placement.schemas import root as schema


class Root(base.Resource):
    @preamble.responder(None, returns={200: schema.VERSIONS})
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        base.send_json(
            resp,
            {
                "versions": [
                    {
                        "id": f"v{mv.MIN_VERSION.major}.0",
                        "max_version": str(mv.MAX_VERSION),
                        "min_version": str(mv.MIN_VERSION),
                        "status": "CURRENT",
                        "links": [{"rel": "self", "href": ""}],
                    }
                ]
            },
        )
        base.set_cache_headers(req, resp, base.utcnow())
