"""``/v1/services``: the appliers and audit runners sharing the database, ACTIVE or FAILED
by their heartbeats (``[DEFAULT] service_down_time``); list, ``/detail``, show by id or name."""

from __future__ import annotations

import datetime
import functools

import falcon

from placement import policy
from placement.handlers import base
from placement.handlers.actionplans import listing, render
from placement.handlers.actionplans.preamble import Lookup, Query, responder
from placement.objects.actionplans import services
from placement.schemas.actionplans import query, responses

_QUERY = Query(query.SERVICES)


def _down_after(resource: base.Resource) -> datetime.timedelta:
    return datetime.timedelta(seconds=resource.deps.conf.service_down_time)


def _collection(resource: base.Resource) -> listing.Collection[services.Service]:
    """The collection, its list function knowing this configuration's down time."""
    fetch = functools.partial(services.list_services, down_after=_down_after(resource))
    return listing.Collection("services", query.SERVICES, fetch, render.service, responses.SERVICE)


class Services(base.Resource):
    """``GET /v1/services``: a page of short items."""

    @responder(
        policy.SERVICE_GET_ALL,
        query=_QUERY,
        returns={200: responses.page("services", responses.SERVICE[0])},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict) -> None:
        listing.send(self, req, resp, _collection(self), False, params)


class ServicesDetail(base.Resource):
    """``GET /v1/services/detail``: a page of whole items."""

    @responder(
        policy.SERVICE_DETAIL,
        query=_QUERY,
        returns={200: responses.page("services", responses.SERVICE[1])},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict) -> None:
        listing.send(self, req, resp, _collection(self), True, params)


class Service(base.Resource):
    """``GET /v1/services/{ident}``: by integer id, else by name (the first with it)."""

    @responder(
        policy.SERVICE_GET,
        lookup=Lookup(services.find_service),
        returns={200: responses.SERVICE[1]},
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, found: services.Service) -> None:
        shown = services.with_status(found, _down_after(self))
        base.send_json(resp, render.service(req, shown, detail=True))
