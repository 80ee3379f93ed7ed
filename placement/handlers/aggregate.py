"""``/resource_providers/{uuid}/aggregates`` (microversion 1.1 on).

From 1.19 the body carries the provider generation: a PUT is refused when it
is stale and always bumps it; before 1.19 neither happens.
"""

from __future__ import annotations

from typing import Any, ClassVar

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.handlers.resource_provider import PROVIDER
from placement.objects import aggregate as agg_obj
from placement.objects import exceptions
from placement.objects.resource_provider import Provider
from placement.schemas import aggregate as schema


def _send(req: falcon.Request, resp: falcon.Response, uuids: list[str], generation: int) -> None:
    body: dict = {"aggregates": uuids}
    if base.version(req) >= mv.AGGREGATES_GENERATION:
        body["resource_provider_generation"] = generation
    base.send_json(resp, body)
    base.set_cache_headers(req, resp, base.utcnow())


class Aggregates(base.Resource):
    ANSWERS: ClassVar[base.Answers] = {
        exceptions.ConcurrentUpdate: base.Answer(
            errors.Conflict, "Update conflict: {message}", errors.CONCURRENT_UPDATE
        ),
    }

    @preamble.responder(
        policy.RP_AGGREGATES_LIST,
        preamble.accepts_json,
        preamble.since(mv.AGGREGATES),
        lookup=PROVIDER,
        returns={200: schema.AGGREGATES},
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, provider: Provider
    ) -> None:
        _send(req, resp, agg_obj.list_for_provider(self.deps.engine, provider), provider.generation)

    @preamble.responder(
        policy.RP_AGGREGATES_UPDATE,
        preamble.sends_json,
        preamble.since(mv.AGGREGATES),
        lookup=PROVIDER,
        body=schema.PUT_AGGREGATES,
        returns={200: schema.AGGREGATES},
    )
    def on_put(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, provider: Provider, data: Any
    ) -> None:
        with_generation = base.version(req) >= mv.AGGREGATES_GENERATION
        uuids = data
        if with_generation:
            if data["resource_provider_generation"] != provider.generation:
                raise errors.Conflict(
                    "Resource provider's generation already changed. Please "
                    "update the generation and try again.",
                    code=errors.CONCURRENT_UPDATE,
                )
            uuids = data["aggregates"]
        generation = agg_obj.set_aggregates(
            self.deps.engine, provider, uuids, increment_generation=with_generation
        )
        _send(req, resp, uuids, generation)
