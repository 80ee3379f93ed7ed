"""``/allocations/{consumer_uuid}``, ``POST /allocations`` and a provider's allocations.

Bodies change shape with the microversion (see ``placement.schemas.allocation``);
here every shape is turned into :class:`claim_consumers.ConsumerWrite` records and
the object layer does the rest. The object layer's errors get the prefix
each route has upstream (:data:`_PUT`, :data:`_POST`).
"""

from __future__ import annotations

import uuid
from typing import Any

import falcon
from oslo_config import cfg
from oslo_utils import uuidutils

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.objects import allocation, claim, claim_consumers, exceptions
from placement.schemas import NO_BODY
from placement.schemas import allocation as schema

_WRITE: base.Answers = {
    exceptions.InvalidAllocation: base.Answer(
        errors.Conflict, "Unable to allocate inventory: {message}"
    ),
    exceptions.ConcurrentUpdate: base.Answer(
        errors.Conflict,
        "Inventory and/or allocations changed while attempting to allocate: {message}",
        errors.CONCURRENT_UPDATE,
    ),
}
_PUT: base.Answers = {
    exceptions.ResourceClassNotFound: base.Answer(
        errors.BadRequest, "Unable to allocate inventory for consumer {consumer}: {message}"
    ),
    **_WRITE,
}
_POST: base.Answers = {
    exceptions.ResourceClassNotFound: base.Answer(
        errors.BadRequest, "Unable to allocate inventory {message}"
    ),
    **_WRITE,
}

#: Upstream's delete words its not-found itself (so with ``Vary``).
_DELETE: base.Answers = {exceptions.NoAllocations: base.Answer(errors.NotFound)}

#: The writes answer 204 without a body.
_DONE = {204: NO_BODY}


def consumer_writes(
    conf: cfg.ConfigOpts, entries: dict, version: mv.Version
) -> list[claim_consumers.ConsumerWrite]:
    """Dict-form entries keyed by consumer uuid → writes for the object layer."""
    return [
        _write(conf, consumer_uuid, entry, entry["allocations"], version)
        for consumer_uuid, entry in entries.items()
    ]


def _write(
    conf: cfg.ConfigOpts, consumer_uuid: str, body: dict, by_provider: dict, version: mv.Version
) -> claim_consumers.ConsumerWrite:
    if "project_id" in body:
        project_id, user_id = body["project_id"], body["user_id"]
    else:  # below 1.8 the body has no owner: upstream's placeholders
        project_id = conf.placement.incomplete_consumer_project_id
        user_id = conf.placement.incomplete_consumer_user_id
    return claim_consumers.ConsumerWrite(
        uuid=consumer_uuid,
        project_id=project_id,
        user_id=user_id,
        allocations={rp: dict(share["resources"]) for rp, share in by_provider.items()},
        generation=(
            body["consumer_generation"]
            if version >= mv.CONSUMER_GENERATION
            else claim_consumers.UNCHECKED
        ),
        consumer_type=body.get("consumer_type") if version >= mv.CONSUMER_TYPES else None,
    )


def _list_to_dict(items: list) -> dict:
    """The 1.0–1.11 list form as the dict form; a repeated provider: last wins."""
    return {item["resource_provider"]["uuid"]: {"resources": item["resources"]} for item in items}


@preamble.refusing(400)
def _canonical_consumer(call: preamble.Call) -> None:
    """The path's consumer uuid in its canonical form; 400 when it is no uuid."""
    consumer_uuid = call.kwargs["consumer_uuid"]
    if not uuidutils.is_uuid_like(consumer_uuid):
        raise errors.BadRequest(f"Malformed consumer_uuid: {consumer_uuid}")
    call.kwargs["consumer_uuid"] = str(uuid.UUID(consumer_uuid))


class ConsumerAllocations(base.Resource):
    """``/allocations/{consumer_uuid}``: what one consumer holds."""

    @preamble.responder(
        policy.ALLOCATIONS_LIST,
        preamble.accepts_json,
        returns={200: schema.CONSUMER_ALLOCATIONS},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, consumer_uuid: str) -> None:
        want = base.version(req)
        found = allocation.get_for_consumer(self.deps.engine, consumer_uuid)
        body: dict = {"allocations": {}}
        if found is not None:
            body["allocations"] = {
                rp: {"resources": share.resources, "generation": share.generation}
                for rp, share in found.providers.items()
            }
            if want >= mv.ALLOCATIONS_DICT:
                body["project_id"] = found.project_id
                body["user_id"] = found.user_id
                if want >= mv.CONSUMER_GENERATION:
                    body["consumer_generation"] = found.generation
                if want >= mv.CONSUMER_TYPES:
                    body["consumer_type"] = found.consumer_type
        base.send_json(resp, body)
        base.set_cache_headers(req, resp, (found and found.last_modified) or base.utcnow())

    @preamble.responder(
        policy.ALLOCATIONS_UPDATE,
        preamble.sends_json,
        lookup=_canonical_consumer,
        body=schema.PUT,
        path={"consumer_uuid": {"type": "string", "format": "uuid"}},
        returns=_DONE,
    )
    def on_put(
        self, req: falcon.Request, resp: falcon.Response, consumer_uuid: str, data: dict
    ) -> None:
        want = base.version(req)
        by_provider = data["allocations"]
        if want < mv.ALLOCATIONS_DICT:
            by_provider = _list_to_dict(by_provider)
        writes = [_write(self.deps.conf, consumer_uuid, data, by_provider, want)]
        with base.answering(_PUT, consumer=consumer_uuid):
            claim.replace(
                self.deps.engine,
                writes,
                attempts=self.deps.conf.placement.allocation_conflict_retry_count,
            )
        base.send_empty(resp, 204)

    @preamble.responder(policy.ALLOCATIONS_DELETE, returns=_DONE)
    def on_delete(self, req: falcon.Request, resp: falcon.Response, consumer_uuid: str) -> None:
        with base.answering(_DELETE):
            allocation.delete_for_consumer(self.deps.engine, consumer_uuid)
        base.send_empty(resp, 204)


#: ``POST /allocations`` arrived in 1.13: below, it is a 404.
_SINCE_POST = preamble.since(mv.POST_ALLOCATIONS)


class Allocations(base.Resource):
    """``POST /allocations`` (1.13): replace several consumers' allocations at once."""

    @preamble.responder(
        policy.ALLOCATIONS_MANAGE, _SINCE_POST, preamble.sends_json, body=schema.POST, returns=_DONE
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        want = base.version(req)
        with base.answering(_POST):
            claim.replace(
                self.deps.engine,
                consumer_writes(self.deps.conf, data, want),
                attempts=self.deps.conf.placement.allocation_conflict_retry_count,
            )
        base.send_empty(resp, 204)


class ProviderAllocations(base.Resource):
    """``GET /resource_providers/{uuid}/allocations``: everything held on a provider."""

    @preamble.responder(
        policy.RP_ALLOCATIONS_LIST,
        preamble.accepts_json,
        returns={200: schema.PROVIDER_ALLOCATIONS},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        found = allocation.get_for_provider(self.deps.engine, uuid)
        if found is None:
            raise errors.NotFound(
                f"Resource provider '{uuid}' not found: No resource provider with uuid {uuid} found"
            )
        with_generation = base.version(req) >= mv.CONSUMER_GENERATION
        consumers: dict[str, dict[str, Any]] = {}
        for consumer_uuid, share in found.consumers.items():
            consumers[consumer_uuid] = {"resources": share.resources}
            if with_generation:
                consumers[consumer_uuid]["consumer_generation"] = share.generation
        base.send_json(
            resp, {"allocations": consumers, "resource_provider_generation": found.generation}
        )
        base.set_cache_headers(req, resp, found.last_modified or base.utcnow())
