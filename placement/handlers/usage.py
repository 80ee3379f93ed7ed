"""Usages of one provider and of a project (``GET /usages``, 1.9 on)."""

from __future__ import annotations

import falcon

from placement import microversion as mv
from placement import policy
from placement.handlers import base, preamble
from placement.handlers.resource_provider import provider_lookup
from placement.objects import usage as usage_obj
from placement.objects.resource_provider import Provider
from placement.schemas import usage as schema


class ProviderUsages(base.Resource):
    """``/resource_providers/{uuid}/usages``."""

    @preamble.responder(
        policy.RP_USAGES,
        preamble.accepts_json,
        lookup=provider_lookup(explain=True, separator=": "),
        returns={200: schema.PROVIDER_USAGES},
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, provider: Provider
    ) -> None:
        base.send_json(
            resp,
            {
                "resource_provider_generation": provider.generation,
                "usages": usage_obj.provider_usages(self.deps.engine, provider.id),
            },
        )
        base.set_cache_headers(req, resp, base.utcnow())


def _asked_project(req: falcon.Request) -> dict:
    """The policy target: the project asked about, before the query is validated."""
    return {"project_id": base.query_dict(req).get("project_id")}


class Usages(base.Resource):
    """``/usages?project_id=&user_id=&consumer_type=``."""

    @preamble.responder(
        policy.USAGES,
        preamble.since(mv.USAGES),
        preamble.accepts_json,
        target=_asked_project,
        query=schema.USAGES_QUERY,
        returns={200: schema.USAGES},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        by_type = base.version(req) >= mv.CONSUMER_TYPES
        usages: dict[str, dict[str, int]] | dict[str, int]
        if by_type:
            usages = usage_obj.project_usages_by_type(
                self.deps.engine,
                params["project_id"],
                params.get("user_id"),
                params.get("consumer_type"),
            )
        else:
            usages = usage_obj.project_usages(
                self.deps.engine, params["project_id"], params.get("user_id")
            )
        base.send_json(resp, {"usages": usages})
        base.set_cache_headers(req, resp, base.utcnow())
