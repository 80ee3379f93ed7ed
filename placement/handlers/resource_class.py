"""``/resource_classes`` and ``/resource_classes/{name}`` (1.2 and later).

``PUT /resource_classes/{name}`` changed meaning at 1.7: before, it renames
a custom class (JSON body ``{"name": new}``); from 1.7 it takes no body and
creates the class unless it exists (201, or 204 when it did).
"""

from __future__ import annotations

import json

import falcon

from placement import errors, policy
from placement import microversion as mv
from placement.handlers import base, preamble
from placement.objects import resource_class as rc_obj
from placement.schemas import NO_BODY, Schema
from placement.schemas import resource_class as schema


def _path(name: str) -> str:
    return f"/resource_classes/{name}"


def _render(req: falcon.Request, rc: rc_obj.ResourceClass) -> dict:
    return {
        "name": rc.name,
        "links": [{"rel": "self", "href": base.url_prefix(req) + _path(rc.name)}],
    }


#: Every route here arrived in 1.2: below, each is a 404.
_SINCE = preamble.since(mv.RESOURCE_CLASSES)


class ResourceClasses(base.Resource):
    """``/resource_classes``: list every class, create a custom one."""

    @preamble.responder(
        policy.RC_LIST, _SINCE, preamble.accepts_json, returns={200: schema.LIST_RESPONSE}
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        classes = rc_obj.list_all(self.deps.engine)
        base.send_json(resp, {"resource_classes": [_render(req, rc) for rc in classes]})
        base.set_cache_headers(
            req, resp, base.latest([rc.last_modified for rc in classes]) or base.utcnow()
        )

    @preamble.responder(
        policy.RC_CREATE,
        _SINCE,
        preamble.sends_json,
        body=schema.NAME_BODY,
        returns={201: NO_BODY},
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, data: dict) -> None:
        rc = rc_obj.create(self.deps.engine, data["name"])
        resp.location = base.absolute_url(req, _path(rc.name))
        base.send_empty(resp, 201)


class ResourceClass(base.Resource):
    """``/resource_classes/{name}``: show, rename or ensure, delete."""

    @preamble.responder(
        policy.RC_SHOW, _SINCE, preamble.accepts_json, returns={200: schema.RESOURCE_CLASS}
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        rc = rc_obj.get(self.deps.engine, name)
        base.send_json(resp, _render(req, rc))
        base.set_cache_headers(req, resp, rc.last_modified or base.utcnow())

    @preamble.responder(
        policy.RC_UPDATE,
        _SINCE,
        preamble.sends_json,
        body=schema.NAME_BODY,
        returns={200: schema.RESOURCE_CLASS},
    )
    def _rename(self, req: falcon.Request, resp: falcon.Response, name: str, data: dict) -> None:
        rc = rc_obj.rename(self.deps.engine, name, data["name"])
        base.send_json(resp, _render(req, rc))

    @preamble.responder(
        policy.RC_UPDATE,
        path={"name": schema.CUSTOM_NAME},
        returns={201: NO_BODY, 204: NO_BODY},
    )
    def _ensure(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        _validate_name_as_body(name, schema.NAME_BODY.at(base.version(req)))
        created, rc = rc_obj.ensure(self.deps.engine, name)
        resp.location = base.absolute_url(req, _path(rc.name))
        base.send_empty(resp, 201 if created else 204)

    #: Two operations under one route, each with its own preamble.
    on_put = preamble.by_version(mv.RESOURCE_CLASS_PUT_CREATE, _rename, _ensure)

    @preamble.responder(policy.RC_DELETE, _SINCE, returns={204: NO_BODY})
    def on_delete(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        rc_obj.delete_custom(self.deps.engine, name)
        base.send_empty(resp, 204)


def _validate_name_as_body(name: str, body_schema: Schema) -> None:
    """Check a 1.7+ ``PUT`` path name as upstream does: pasted into a body.

    The name is put between the quotes of ``{"name": "…"}`` and that text is
    parsed and validated, so a quote in the name is malformed JSON and a JSON
    escape in it is decoded before the pattern is checked.
    """
    try:
        data = json.loads('{"name": "' + name + '"}')
    except ValueError as exc:
        raise errors.BadRequest(f"Malformed JSON: {exc}") from None
    base.validate_body(data, body_schema)
