"""Collections: the list query → a page of the object layer → items and ``next``.

``limit`` is clamped to ``[api] max_limit`` (also the limit when none is
given). ``next`` is added when the page is full; unlike upstream it repeats
the request's filters, so following it stays inside the filtered list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic
from urllib.parse import urlencode

import falcon

from placement.handlers import base
from placement.handlers.actionplans import validation
from placement.handlers.actionplans.preamble import Query, responder
from placement.objects.actionplans import paging
from placement.objects.actionplans.paging import R
from placement.schemas import Versioned
from placement.schemas.actionplans import query as schema
from placement.schemas.actionplans import responses


@dataclass(frozen=True)
class Collection(Generic[R]):
    """One collection: its key, query schema, list function (the object layer's:
    engine, page and filters to rows, in a read transaction of its own), item
    renderer and the schemas of its items (list, then ``/detail``)."""

    key: str
    query: dict[str, Any]
    fetch: Callable[..., list[R]]
    render: Callable[[falcon.Request, R, bool], dict[str, Any]]
    items: tuple[Versioned, Versioned]

    def page(self, detail: bool) -> Versioned:
        """The schema of a list (``detail``: ``/detail``) answer."""
        return responses.page(self.key, self.items[detail])

    @property
    def filters(self) -> tuple[str, ...]:
        return schema.FILTERS[self.key]

    def check(self, params: dict[str, str]) -> None:
        """Rules across arguments, beyond the query schema (none by default)."""


def page_of(params: dict[str, str], max_limit: int) -> paging.Page:
    """The object layer's page for a validated query."""
    limit = min(_integer("limit", params["limit"]), max_limit) if "limit" in params else max_limit
    return paging.Page(
        limit=limit,
        marker=params.get("marker"),
        sort_key=params.get("sort_key", "id"),
        sort_dir=params.get("sort_dir", "asc"),
    )


def _integer(name: str, value: str) -> int:
    """A query value the schema matched as an integer; one of more digits than
    Python converts (4,300) is Watcher's 400 for a value ``int()`` refuses."""
    try:
        return int(value)
    except ValueError as exc:
        raise validation.invalid_field(
            name, value, f"unable to convert to int. Error: {exc}"
        ) from None


def send(
    resource: base.Resource,
    req: falcon.Request,
    resp: falcon.Response,
    collection: Collection[R],
    detail: bool,
    params: dict[str, str],
) -> None:
    """Answer a list (or ``/detail``) request for ``collection`` (``params``:
    its validated query)."""
    collection.check(params)
    page = page_of(params, resource.deps.conf.api.max_limit)
    filters = {name: params[name] for name in collection.filters if name in params}
    rows = collection.fetch(resource.deps.engine, page, **filters)
    doc: dict[str, Any] = {collection.key: [collection.render(req, row, detail) for row in rows]}
    if rows and len(rows) == page.limit:
        doc["next"] = _next_link(req, collection, page, rows[-1].uuid, filters, detail)
    base.send_json(resp, doc)


def _next_link(
    req: falcon.Request,
    collection: Collection[R],
    page: paging.Page,
    marker: str,
    filters: dict[str, str],
    detail: bool,
) -> str:
    query = {
        "sort_key": page.sort_key,
        "sort_dir": page.sort_dir,
        "limit": page.limit,
        "marker": marker,
        **filters,
    }
    path = f"/v1/{collection.key}/detail" if detail else f"/v1/{collection.key}"
    return f"{base.absolute_url(req, path)}?{urlencode(query)}"


class ListResource(base.Resource):
    """What :func:`resources` makes: a resource answering GET with a page."""

    on_get: Callable[..., None]


def resources(
    collection: Collection[R], list_rule: str, detail_rule: str
) -> tuple[type[ListResource], type[ListResource]]:
    """The Falcon resources of ``/v1/<key>`` and ``/v1/<key>/detail`` (GET only)."""

    query = Query(collection.query)

    class List(ListResource):
        @responder(list_rule, query=query, returns={200: collection.page(detail=False)})
        def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict) -> None:
            send(self, req, resp, collection, False, params)

    class Detail(ListResource):
        @responder(detail_rule, query=query, returns={200: collection.page(detail=True)})
        def on_get(self, req: falcon.Request, resp: falcon.Response, params: dict) -> None:
            send(self, req, resp, collection, True, params)

    List.__doc__ = f"``GET /v1/{collection.key}``: a page of short items."
    Detail.__doc__ = f"``GET /v1/{collection.key}/detail``: a page of whole items."
    return List, Detail
