"""The OpenAPI 3.1 description of the whole API, and ``/openapi.json`` serving it.

Built, never written by hand: each path and method of the route table
(:data:`routes.ROUTES`) becomes an operation from what its responder declares
(:class:`placement.handlers.preamble.Declaration`): the request body and query
string schemas the preamble validates with, the response bodies it states
(``returns=``), and the statuses its steps and answer tables can produce.
A change to a schema, a route or a preamble changes the description with it.

Each operation shows the newest microversion of its API (``placement`` for
the Placement routes, ``infra-optim`` under ``/v1``): the
``OpenStack-API-Version`` header it documents names that version. Every
older version range where a request or response shape differs, or where the
route does not exist yet, is listed under the vendor extension
``x-openstack-microversions``.

``/openapi.json`` is answered before every other layer, like
``/healthcheck``: the description is static, so it needs no credentials,
and no path of the Placement API changes.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from placement import auth
from placement import microversion as mv
from placement.handlers import preamble
from placement.schemas import EMPTY, NOT_ANSWERED, Schema, Versioned
from placement.wsgi import routes

PATH = "/openapi.json"

#: Placement's error document (``errors.render``); 406s carry the version range too.
PLACEMENT_ERROR: Schema = {
    "type": "object",
    "properties": {
        "errors": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "status": {"type": "integer"},
                    "title": {"type": "string"},
                    "detail": {"type": "string"},
                    "request_id": {"type": "string"},
                    "code": {"type": "string"},
                    "max_version": {"type": "string"},
                    "min_version": {"type": "string"},
                },
                "required": ["status", "title", "detail"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["errors"],
    "additionalProperties": False,
}

#: Watcher's error document under ``/v1``: ``error_message`` is JSON in a string.
WATCHER_ERROR: Schema = {
    "type": "object",
    "properties": {"error_message": {"type": "string"}},
    "required": ["error_message"],
    "additionalProperties": False,
}

#: Keywords of ours in the ``/v1`` schemas (upstream's wording of a bad value).
_OUR_KEYWORDS = ("invalid",)

_PATH_FIELD = re.compile(r"{(\w+)}")
#: A group key of the candidates query, ``^resources(<suffix>)?$``: its plain name.
_GROUP_KEY = re.compile(r"\^(\w+)\(.*\)\?\$")


@dataclass(frozen=True)
class Api:
    """One of the two APIs served: its service type, versions and error document."""

    service: str
    minimum: mv.Version
    maximum: mv.Version
    error: str

    def versions(self) -> list[mv.Version]:
        return [mv.Version(self.maximum.major, minor) for minor in range(self.maximum.minor + 1)]

    def header(self, version: mv.Version) -> str:
        return f"{self.service} {version}"


PLACEMENT = Api(mv.SERVICE_TYPE, mv.MIN_VERSION, mv.MAX_VERSION, "PlacementError")
INFRA_OPTIM = Api(
    mv.INFRA_OPTIM_SERVICE_TYPE,
    mv.INFRA_OPTIM_MIN_VERSION,
    mv.INFRA_OPTIM_MAX_VERSION,
    "WatcherError",
)

#: Statuses every operation may answer before its responder runs: a bad
#: version header or ``Content-Length``, too many query parameters or too long
#: a header (400), a version not served (406), a declared body over ``[api]
#: max_request_body_size`` (413, ``wsgi/limits.py``), a database that cannot
#: be reached (503, with ``Retry-After``).
COMMON_STATUSES = frozenset({400, 406, 413, 503})


@dataclass(frozen=True)
class Creator:
    """An operation that makes what a path names: its answers link to every
    operation under ``item`` (OpenAPI links: a client, or schemathesis's
    stateful phase, follows them with ``field`` taken from ``source``)."""

    method: str
    template: str
    item: str
    field: str
    source: str


#: What makes the things the paths name.
CREATORS = (
    Creator(
        "POST", "/resource_providers", "/resource_providers/{uuid}", "uuid", "$response.body#/uuid"
    ),
    Creator(
        "PUT", "/resource_classes/{name}", "/resource_classes/{name}", "name", "$request.path.name"
    ),
    Creator("PUT", "/traits/{name}", "/traits/{name}", "name", "$request.path.name"),
    Creator(
        "PUT",
        "/allocations/{consumer_uuid}",
        "/allocations/{consumer_uuid}",
        "consumer_uuid",
        "$request.path.consumer_uuid",
    ),
    Creator("POST", "/v1/audits", "/v1/audits/{ident}", "ident", "$response.body#/uuid"),
)


def api_of(template: str) -> Api:
    return INFRA_OPTIM if mv.is_infra_optim_path(template) else PLACEMENT


def operations() -> Iterable[tuple[str, str, type]]:
    """Every ``(path template, method, resource class)`` of the route table."""
    for template, resource, allow in routes.ROUTES:
        for method in allow.split(","):
            yield template, method.strip(), resource


def declarations_of(resource: type, method: str) -> tuple[preamble.Declaration, ...]:
    responder = getattr(resource, f"on_{method.lower()}")
    declared = preamble.declarations(responder)
    if not declared:
        raise TypeError(f"{resource.__name__}.on_{method.lower()} declares nothing")
    return declared


def successes(declared: preamble.Declaration, version: mv.Version) -> dict[int, Schema]:
    """The success statuses ``declared`` answers at ``version``, with their bodies' schemas."""
    found = {status: schema.at(version) for status, schema in declared.returns.items()}
    return {status: schema for status, schema in sorted(found.items()) if schema != NOT_ANSWERED}


def statuses(template: str, method: str, resource: type) -> frozenset[int]:
    """Every status the operation may answer at its API's newest version.

    What its declaration says (successes there, each step's refusals but for
    a minimum version's, its answer tables), its class's ``ANSWERS``,
    :data:`COMMON_STATUSES`, and 404 for a path with fields (a field holding
    ``/`` names no route).
    """
    api = api_of(template)
    current = newest(declarations_of(resource, method), api)
    found = set(successes(current, api.maximum)) | COMMON_STATUSES
    for step in current.steps:
        if not isinstance(step, preamble.Since):
            found |= preamble.refusals(step)
    for table in (*current.answers, getattr(resource, "ANSWERS", {})):
        found |= {answer.error.status for answer in table.values()}
    if _PATH_FIELD.search(template):
        found.add(404)
    return frozenset(found)


def document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 description."""
    paths: dict[str, dict[str, Any]] = {}
    for template, method, resource in operations():
        paths.setdefault(template, {})[method.lower()] = _operation(template, method, resource)
    _link(paths)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "OpenStack Placement and infra-optim (/v1)",
            "version": f"placement {mv.MAX_VERSION}, infra-optim {mv.INFRA_OPTIM_MAX_VERSION}",
            "description": (
                "Generated from the route table and the schemas the service validates "
                "with. Each operation shows its API's newest microversion; "
                "x-openstack-microversions lists the older ranges that differ."
            ),
        },
        "paths": paths,
        "components": {
            "schemas": {"PlacementError": PLACEMENT_ERROR, "WatcherError": WATCHER_ERROR}
        },
    }


def _link(paths: dict[str, dict[str, Any]]) -> None:
    """Add each :data:`CREATORS` entry's links to its success answers."""
    for creator in CREATORS:
        targets = {
            _operation_id(method, template): {
                "operationId": _operation_id(method, template),
                "parameters": {creator.field: creator.source},
            }
            for template, item in paths.items()
            if template == creator.item or template.startswith(creator.item + "/")
            for method in item
        }
        answers = paths[creator.template][creator.method.lower()]["responses"]
        for status, answer in answers.items():
            if int(status) < 300:
                answer["links"] = targets


def newest(declared: tuple[preamble.Declaration, ...], api: Api) -> preamble.Declaration:
    """The declaration serving the API's newest version."""
    return _serving(declared, api.maximum) or declared[-1]


def _serving(
    declared: tuple[preamble.Declaration, ...], version: mv.Version
) -> preamble.Declaration | None:
    for each in declared:
        if (each.first is None or version >= each.first) and (
            each.until is None or version < each.until
        ):
            return each
    return None


def _operation(template: str, method: str, resource: type) -> dict[str, Any]:
    api = api_of(template)
    declared = declarations_of(resource, method)
    current = newest(declared, api)
    operation: dict[str, Any] = {
        "operationId": _operation_id(method, template),
        "summary": _summary(resource),
        "tags": [api.service],
        "parameters": [
            *_path_parameters(template, current.path),
            _version_header(api),
            *_query_parameters(current.query, api.maximum),
        ],
        "responses": _responses(template, method, resource, current, api),
    }
    if current.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _public(current.body.at(api.maximum))}},
        }
    ranges = _older_ranges(declared, api)
    if ranges:
        operation["x-openstack-microversions"] = ranges
    return operation


def _operation_id(method: str, template: str) -> str:
    words = re.findall(r"\w+", template)
    return "_".join([method.lower(), *words]) if words else f"{method.lower()}_root"


def _summary(resource: type) -> str:
    doc = (resource.__doc__ or resource.__name__).strip()
    return doc.splitlines()[0]


def _path_parameters(template: str, declared: Mapping[str, Schema]) -> list[dict[str, Any]]:
    """The path's fields: the schema the responder declares, else any text."""
    return [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _public(declared.get(name, {"type": "string", "minLength": 1})),
        }
        for name in _PATH_FIELD.findall(template)
    ]


def _version_header(api: Api) -> dict[str, Any]:
    return {
        "name": mv.HEADER,
        "in": "header",
        "required": True,
        "description": (
            f"The microversion asked for. This description shows {api.header(api.maximum)}; "
            f"{api.header(api.minimum)} (the default) and the others are served too, "
            "with the shapes x-openstack-microversions gives."
        ),
        "schema": {"type": "string", "enum": [api.header(api.maximum)]},
    }


def _query_parameters(query: Versioned | None, version: mv.Version) -> list[dict[str, Any]]:
    """The query string's schema at ``version`` as one parameter per key.

    A group key matched by pattern (``resources1``, ``required_NET``) is
    documented by its plain name, the pattern in its description.
    """
    if query is None:
        return []
    schema = query.at(version)
    required = set(schema.get("required", ()))
    parameters = [
        {
            "name": name,
            "in": "query",
            "required": name in required,
            "schema": _public(value),
        }
        for name, value in schema.get("properties", {}).items()
    ]
    for pattern, value in schema.get("patternProperties", {}).items():
        match = _GROUP_KEY.fullmatch(pattern)
        if match is None:
            raise ValueError(f"query key pattern {pattern!r} names no parameter")
        parameters.append(
            {
                "name": match.group(1),
                "in": "query",
                "required": False,
                "description": f"Also with a suffix: any key matching {pattern}.",
                "schema": _public(value),
            }
        )
    return parameters


def _responses(
    template: str, method: str, resource: type, current: preamble.Declaration, api: Api
) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    shown = successes(current, api.maximum)
    for status in sorted(statuses(template, method, resource)):
        if status in shown:
            answers[str(status)] = _success(status, shown[status])
        else:
            answers[str(status)] = _error(status, api)
    return answers


def _success(status: int, schema: Schema) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": _phrase(status)}
    if schema != EMPTY:
        answer["content"] = {"application/json": {"schema": _public(schema)}}
    if status == 201:
        answer["headers"] = {
            "Location": {
                "description": "The URL of what was created.",
                "schema": {"type": "string"},
            }
        }
    return answer


def _error(status: int, api: Api) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": _phrase(status),
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{api.error}"}}},
    }
    if status == 503:
        answer["headers"] = {
            "Retry-After": {"description": "Seconds to wait.", "schema": {"type": "string"}}
        }
    return answer


def _phrase(status: int) -> str:
    return HTTPStatus(status).phrase


def _older_ranges(declared: tuple[preamble.Declaration, ...], api: Api) -> list[dict[str, Any]]:
    """The version ranges below the newest whose shapes differ from it, oldest first."""
    shapes = [(version, _shape(declared, version)) for version in api.versions()]
    newest = shapes[-1][1]
    ranges: list[dict[str, Any]] = []
    for version, shape in shapes:
        if ranges and ranges[-1]["shape"] == shape:
            ranges[-1]["max_version"] = str(version)
        else:
            ranges.append(
                {"min_version": str(version), "max_version": str(version), "shape": shape}
            )
    return [
        {"min_version": each["min_version"], "max_version": each["max_version"], **each["shape"]}
        for each in ranges
        if each["shape"] != newest
    ]


def _shape(declared: tuple[preamble.Declaration, ...], version: mv.Version) -> dict[str, Any]:
    """What an operation takes and answers at ``version`` (or how it refuses)."""
    serving = _serving(declared, version)
    if serving is None:
        raise ValueError(f"no declaration serves {version}")
    since = serving.since
    if since is not None and version < since.minimum:
        return {"refused": min(preamble.refusals(since))}
    shape: dict[str, Any] = {
        "responses": {
            str(status): None if schema == EMPTY else _public(schema)
            for status, schema in successes(serving, version).items()
        }
    }
    if serving.body is not None:
        shape["requestBody"] = _public(serving.body.at(version))
    if serving.query is not None:
        shape["query"] = {p["name"]: p["schema"] for p in _query_parameters(serving.query, version)}
    return shape


def _public(schema: Schema) -> Schema:
    """``schema`` without the keywords only our validation reads."""
    return _strip(copy.deepcopy(schema))


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        for keyword in _OUR_KEYWORDS:
            if isinstance(value.get(keyword), str):
                del value[keyword]
        for item in value.values():
            _strip(item)
    elif isinstance(value, list):
        for item in value:
            _strip(item)
    return value


class DescriptionRoute:
    """``GET /openapi.json`` answered with the description; every other request
    goes on to ``app``. The text is made on first use and kept."""

    def __init__(self, app: auth.WSGIApp) -> None:
        self.app = app
        self._text: bytes | None = None

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != PATH or environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        if self._text is None:
            self._text = json.dumps(document(), indent=1).encode()
        start_response(
            "200 OK",
            [("Content-Type", "application/json"), ("Content-Length", str(len(self._text)))],
        )
        return [] if environ["REQUEST_METHOD"] == "HEAD" else [self._text]
