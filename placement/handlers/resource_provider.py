"""``/resource_providers`` and ``/resource_providers/{uuid}``."""

from __future__ import annotations

import uuid as uuidlib
from typing import ClassVar

import falcon

from placement import errors, filters, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.objects import exceptions
from placement.objects import resource_provider as rp_obj
from placement.objects.resource_provider import Provider
from placement.schemas import NO_BODY
from placement.schemas import resource_provider as schema

# Links beyond "self", each with the version that introduced it.
_LINKS = (
    ("inventories", mv.MIN_VERSION),
    ("usages", mv.MIN_VERSION),
    ("aggregates", mv.AGGREGATES),
    ("traits", mv.TRAITS),
    ("allocations", mv.ALLOCATIONS_LINK),
)


def provider_path(uuid: str) -> str:
    return f"/resource_providers/{uuid}"


def load_provider(
    resource: base.Resource, uuid: str, *, explain: bool = False, separator: str = " : "
) -> rp_obj.Provider:
    """The provider at ``uuid`` or 404 ``No resource provider with uuid <u> found``.

    Some routes word the 404 themselves, as upstream's handlers do: they
    repeat the reason after ``separator`` (``explain``) and keep ``Vary``.
    On the others upstream lets the lookup's not-found escape: no ``Vary``.
    """
    provider = rp_obj.find(resource.deps.engine, uuid)
    if provider is None:
        message = f"No resource provider with uuid {uuid} found"
        if explain:
            raise errors.NotFound(f"{message}{separator}{message}")
        raise errors.EscapedNotFound(message)
    return provider


def provider_lookup(*, explain: bool = False, separator: str = " : ") -> preamble.Step:
    """The preamble step passing on the provider the path's ``uuid`` names as ``provider``."""

    @preamble.refusing(404)
    def step(call: preamble.Call) -> None:
        call.kwargs["provider"] = load_provider(
            call.resource, call.kwargs["uuid"], explain=explain, separator=separator
        )

    return step


#: The provider, or 404 ``No resource provider with uuid <u> found`` (without ``Vary``).
PROVIDER = provider_lookup()


def serialize(req: falcon.Request, provider: Provider) -> dict:
    """The provider as the API shows it at the request's microversion."""
    want = base.version(req)
    url = base.url_prefix(req) + provider_path(provider.uuid)
    links = [{"rel": "self", "href": url}] + [
        {"rel": rel, "href": f"{url}/{rel}"} for rel, since in _LINKS if want >= since
    ]
    data = {
        "uuid": provider.uuid,
        "name": provider.name,
        "generation": provider.generation,
        "links": links,
    }
    if want >= mv.NESTED_PROVIDERS:
        data["parent_provider_uuid"] = provider.parent_provider_uuid
        data["root_provider_uuid"] = provider.root_provider_uuid
    return data


class ResourceProviders(base.Resource):
    """``/resource_providers``: list with filters, create."""

    #: The list's filters name unknown traits or classes: the query is wrong.
    ANSWERS: ClassVar[base.Answers] = {exceptions.NameNotFound: base.Answer(errors.BadRequest)}

    @preamble.responder(
        policy.RP_LIST,
        preamble.accepts_json,
        query=schema.LIST_QUERY,
        returns={200: schema.LIST_RESPONSE},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str]) -> None:
        want = base.version(req)
        providers = rp_obj.list_providers(self.deps.engine, _list_filters(req, params, want))
        base.send_json(resp, {"resource_providers": [serialize(req, p) for p in providers]})
        base.set_cache_headers(
            req, resp, base.latest([p.last_modified for p in providers]) or base.utcnow()
        )

    @preamble.responder(
        policy.RP_CREATE,
        preamble.sends_json,
        body=schema.POST_PROVIDER,
        returns={200: schema.CREATED_SHOWN, 201: schema.CREATED},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        want = base.version(req)
        # Any uuid-like form (no dashes, upper case, braces) is stored canonical.
        uuid = str(uuidlib.UUID(data["uuid"])) if data.get("uuid") else str(uuidlib.uuid4())
        provider = rp_obj.create_provider(
            self.deps.engine,
            name=data["name"],
            uuid=uuid,
            parent_uuid=data.get("parent_provider_uuid"),
        )
        resp.set_header("Location", base.absolute_url(req, provider_path(provider.uuid)))
        if want >= mv.PROVIDER_CREATE_RETURNS_BODY:
            base.send_json(resp, serialize(req, provider))
            base.set_cache_headers(req, resp, provider.last_modified)
        else:
            base.send_empty(resp, 201)


def _list_filters(
    req: falcon.Request, params: dict[str, str], want: mv.Version
) -> rp_obj.ProviderFilters:
    """Parse the filters the (already validated) query asks for."""
    pairs = base.query_pairs(req)

    def all_values(key: str) -> list[str]:
        return [value for name, value in pairs if name == key]

    return rp_obj.ProviderFilters(
        name=params.get("name"),
        uuid=params.get("uuid"),
        in_tree=params.get("in_tree"),
        member_of=(
            filters.parse_member_of(all_values("member_of"), want)
            if "member_of" in params
            else None
        ),
        traits=(
            filters.parse_required(all_values("required"), want) if "required" in params else None
        ),
        resources=(filters.parse_resources(params["resources"]) if "resources" in params else None),
    )


#: Upstream's delete words its not-found itself (so with ``Vary``).
_DELETE: base.Answers = {exceptions.ProviderNotFound: base.Answer(errors.NotFound)}


class ResourceProvider(base.Resource):
    """``/resource_providers/{uuid}``: show, update, delete."""

    @preamble.responder(
        policy.RP_SHOW, preamble.accepts_json, lookup=PROVIDER, returns={200: schema.PROVIDER}
    )
    def on_get(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, provider: Provider
    ) -> None:
        base.send_json(resp, serialize(req, provider))
        base.set_cache_headers(req, resp, provider.last_modified)

    @preamble.responder(
        policy.RP_UPDATE,
        preamble.sends_json,
        lookup=PROVIDER,
        body=schema.PUT_PROVIDER,
        returns={200: schema.PROVIDER},
    )
    def on_put(
        self, req: falcon.Request, resp: falcon.Response, uuid: str, provider: Provider, data: dict
    ) -> None:
        want = base.version(req)
        updated = rp_obj.update_provider(
            self.deps.engine,
            provider,
            name=data["name"],
            parent_uuid=data.get("parent_provider_uuid", rp_obj.KEEP_PARENT),
            allow_reparenting=want >= mv.REPARENT_PROVIDERS,
        )
        base.send_json(resp, serialize(req, updated))
        # Upstream reports the update time read before this write.
        base.set_cache_headers(req, resp, provider.updated_at)

    @preamble.responder(policy.RP_DELETE, returns={204: NO_BODY})
    def on_delete(self, req: falcon.Request, resp: falcon.Response, uuid: str) -> None:
        with base.answering(_DELETE):
            rp_obj.delete_provider(self.deps.engine, uuid)
        base.send_empty(resp, 204)
