"""``/traits``, ``/traits/{name}`` and ``/resource_providers/{uuid}/traits`` (1.6+)."""

from __future__ import annotations

import datetime
from typing import ClassVar

import falcon
import jsonschema

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.objects import exceptions
from placement.objects import trait as trait_obj
from placement.schemas import NO_BODY
from placement.schemas import trait as schema

_INVALID_NAME = (
    "The trait is invalid. A valid trait must be no longer than 255 characters, start "
    'with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"'
)

#: A provider's traits: shown (``uuid`` the path's), and set (unknown names are the body's).
_SHOW: base.Answers = {
    exceptions.ProviderNotFound: base.Answer(
        errors.NotFound, "No resource provider with uuid {uuid} found: {message}"
    ),
}
_SET: base.Answers = {exceptions.TraitNotFound: base.Answer(errors.BadRequest)}


def _last_modified(traits: list[trait_obj.Trait]) -> datetime.datetime:
    """The newest trait's time, or now when there is none."""
    return base.latest([trait.last_modified for trait in traits]) or base.utcnow()


def _list_filters(params: dict[str, str]) -> dict:
    """``list_traits`` keywords from ``?name=in:…|startswith:…&associated=…``."""
    filters: dict = {}
    if "name" in params:
        op, sep, value = params["name"].partition(":")
        if not sep:
            raise errors.BadRequest(
                "Badly formatted name parameter. Expected name query string parameter in "
                f'form: ?name=[in|startswith]:[name1,name2|prefix]. Got: "{params["name"]}"'
            )
        # Any other operator filters nothing, as upstream.
        if op == "in":
            filters["names"] = value.split(",")
        elif op == "startswith":
            filters["prefix"] = value
    if "associated" in params:
        associated = params["associated"].lower()
        if associated not in ("true", "false"):
            raise errors.BadRequest(
                'The query parameter "associated" only accepts "true" or "false"'
            )
        filters["associated"] = associated == "true"
    return filters


#: Every route here arrived in 1.6: below, each is a 404.
_SINCE = preamble.since(mv.TRAITS)
_TRAITS = {200: schema.PROVIDER_TRAITS}


class Traits(base.Resource):
    """``GET /traits``: trait names, optionally filtered."""

    @preamble.responder(
        policy.TRAITS_LIST,
        _SINCE,
        preamble.accepts_json,
        query=schema.LIST_QUERY,
        returns={200: schema.LIST_RESPONSE},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        traits = trait_obj.list_traits(self.deps.engine, **_list_filters(params))
        base.send_json(resp, {"traits": [trait.name for trait in traits]})
        base.set_cache_headers(req, resp, _last_modified(traits))


class Trait(base.Resource):
    """``/traits/{name}``: check existence, create a custom trait, delete it."""

    #: Upstream's routes word an unknown trait themselves (so with ``Vary``).
    ANSWERS: ClassVar[base.Answers] = {exceptions.TraitNotFound: base.Answer(errors.NotFound)}

    @preamble.responder(policy.TRAITS_SHOW, _SINCE, returns={204: NO_BODY})
    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        trait = trait_obj.get(self.deps.engine, name)
        base.send_empty(resp, 204)
        base.set_cache_headers(req, resp, trait.created_at)

    @preamble.responder(
        policy.TRAITS_UPDATE,
        _SINCE,
        path={"name": schema.CUSTOM_NAME},
        returns={201: NO_BODY, 204: NO_BODY},
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        try:
            jsonschema.validate(name, schema.CUSTOM_NAME)
        except jsonschema.ValidationError:
            raise errors.BadRequest(_INVALID_NAME) from None
        created, trait = trait_obj.ensure(self.deps.engine, name)
        resp.location = base.absolute_url(req, f"/traits/{trait.name}")
        base.send_empty(resp, 201 if created else 204)
        base.set_cache_headers(req, resp, trait.created_at)

    @preamble.responder(policy.TRAITS_DELETE, _SINCE, returns={204: NO_BODY})
    def on_delete(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        trait_obj.delete_custom(self.deps.engine, name)
        base.send_empty(resp, 204)


class ProviderTraits(base.Resource):
    """``/resource_providers/{uuid}/traits``: a provider's set of traits."""

    @preamble.responder(policy.RP_TRAITS_LIST, _SINCE, preamble.accepts_json, returns=_TRAITS)
    def on_get(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        with base.answering(_SHOW, uuid=uuid):
            found = trait_obj.provider_traits(self.deps.engine, uuid)
        self._send(req, resp, found)

    @preamble.responder(
        policy.RP_TRAITS_UPDATE,
        _SINCE,
        preamble.sends_json,
        body=schema.SET_PROVIDER_TRAITS,
        returns=_TRAITS,
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, uuid: str, data: dict) -> None:
        with base.answering(_SET):
            found = trait_obj.set_provider_traits(
                self.deps.engine, uuid, data["resource_provider_generation"], data["traits"]
            )
        self._send(req, resp, found)

    @preamble.responder(policy.RP_TRAITS_DELETE, _SINCE, returns={204: NO_BODY})
    def on_delete(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        trait_obj.clear_provider_traits(self.deps.engine, uuid)
        base.send_empty(resp, 204)

    @staticmethod
    def _send(req: falcon.Request, resp: falcon.Response, found: trait_obj.ProviderTraits) -> None:
        base.send_json(
            resp,
            {
                "traits": [trait.name for trait in found.traits],
                "resource_provider_generation": found.generation,
            },
        )
        base.set_cache_headers(req, resp, _last_modified(found.traits))
