"""Usages of one provider and of a project (``GET /usages``, 1.9 on)."""

from __future__ import annotations

import falcon

from placement import microversion as mv
from placement.handlers import base
from placement.handlers.resource_provider import load_provider
from placement.objects import usage as usage_obj
from placement.schemas import usage as schema


class ProviderUsages(base.Resource):
    """``/resource_providers/{uuid}/usages``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        base.check_accept(req)
        self.authorize(req, "placement:resource_providers:usages")
        provider = load_provider(self, uuid, explain=True, separator=": ")
        base.send_json(
            resp,
            {
                "resource_provider_generation": provider.generation,
                "usages": usage_obj.provider_usages(self.deps.engine, provider.id),
            },
        )
        base.set_cache_headers(req, resp, base.utcnow())


class Usages(base.Resource):
    """``/usages?project_id=&user_id=&consumer_type=``."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        base.require_version(req, mv.USAGES)
        base.check_accept(req)
        # The policy target is the project asked about, before validation.
        self.authorize(
            req, "placement:usages", {"project_id": base.query_dict(req).get("project_id")}
        )
        by_type = base.version(req) >= mv.CONSUMER_TYPES
        params = base.validate_query(
            req, schema.USAGES_QUERY_1_38 if by_type else schema.USAGES_QUERY
        )
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
