"""What every handler shares: its dependencies and request/response helpers.

Handlers stay thin: parse and validate, authorize, call one function of the
object layer, render a plain dict. These helpers hold the parsing and
rendering rules that are the same for every route.
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import functools
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qsl

import falcon
import jsonschema
from oslo_config import cfg
from oslo_policy import policy as oslo_policy
from oslo_utils import uuidutils

from placement import auth, errors, microversion, policy
from placement.objects import exceptions

if TYPE_CHECKING:  # handlers hold the engine for the object layer, never query it
    import sqlalchemy


@dataclass(frozen=True)
class Deps:
    """Everything a handler may use, built once when the app is created."""

    conf: cfg.ConfigOpts
    engine: sqlalchemy.Engine
    enforcer: oslo_policy.Enforcer


# --- domain errors → HTTP errors ------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """The HTTP error a handler answers a domain error with.

    ``template`` is formatted with ``message`` (the domain error's text) and
    the facts the handler passes to :func:`answering`.
    """

    error: type[errors.PlacementError]
    template: str = "{message}"
    code: str | None = None


#: Domain error type → its answer; the first type the error is an instance of wins.
Answers = Mapping[type[Exception], Answer]

#: How every handler answers the object layer's errors unless its own table
#: says otherwise: the code each error has everywhere, then the families.
OBJECT_ANSWERS: Answers = {
    exceptions.ConcurrentUpdate: Answer(errors.Conflict, code=errors.CONCURRENT_UPDATE),
    exceptions.StaleGeneration: Answer(errors.Conflict, code=errors.CONCURRENT_UPDATE),
    exceptions.InventoryExists: Answer(errors.Conflict, code=errors.CONCURRENT_UPDATE),
    exceptions.InventoryInUse: Answer(errors.Conflict, code=errors.INVENTORY_INUSE),
    exceptions.DuplicateProvider: Answer(errors.Conflict, code=errors.DUPLICATE_NAME),
    exceptions.ProviderInUse: Answer(errors.Conflict, code=errors.PROVIDER_IN_USE),
    exceptions.ProviderHasChildren: Answer(
        errors.Conflict, code=errors.PROVIDER_CANNOT_DELETE_PARENT
    ),
    exceptions.NotFound: Answer(errors.NotFound),
    exceptions.Invalid: Answer(errors.BadRequest),
    exceptions.Conflict: Answer(errors.Conflict),
}


def http_error(exc: Exception, *tables: Answers, **facts: object) -> errors.PlacementError:
    """The answer to ``exc`` from the first of ``tables`` that has one (else a 500)."""
    for table in tables:
        for family, answer in table.items():
            if isinstance(exc, family):
                message = answer.template.format(message=str(exc), **facts)
                return answer.error(message, code=answer.code)
    return errors.InternalError(str(exc))


@contextlib.contextmanager
def answering(table: Answers, **facts: object) -> Iterator[None]:
    """Answer the object layer's errors raised inside by ``table``, then
    :data:`OBJECT_ANSWERS`; ``facts`` fill the templates' other fields."""
    try:
        yield
    except exceptions.ObjectError as exc:
        raise http_error(exc, table, OBJECT_ANSWERS, **facts) from None


Responder = Callable[..., None]


def _answered(responder: Responder, table: Answers) -> Responder:
    @functools.wraps(responder)
    def run(resource: Resource, req: falcon.Request, resp: falcon.Response, **path: str) -> None:
        with answering(table):
            responder(resource, req, resp, **path)

    return run


class Resource:
    """Base of every Falcon resource: holds the app's dependencies.

    Every responder (``on_get``...) answers the object layer's errors by the
    class's :attr:`ANSWERS` (then :data:`OBJECT_ANSWERS`); a responder whose
    routes word an error with request facts wraps its call in
    :func:`answering` itself.

    ``OPTIONS`` is not part of the Placement API: without CORS it is a 405.
    """

    ANSWERS: ClassVar[Answers] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, responder in list(vars(cls).items()):
            if name.startswith("on_") and callable(responder):
                setattr(cls, name, _answered(responder, cls.ANSWERS))

    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    def on_options(self, req: falcon.Request, resp: falcon.Response, **_: Any) -> None:
        raise falcon.HTTPMethodNotAllowed([])

    def authorize(self, req: falcon.Request, rule: str, target: dict | None = None) -> None:
        policy.authorize(self.deps.enforcer, req.env[auth.ENVIRON_KEY], rule, target)


# --- versions ---------------------------------------------------------------


def version(req: falcon.Request) -> microversion.Version:
    return req.context.microversion


def require_version(req: falcon.Request, minimum: microversion.Version) -> None:
    """Routes that do not exist before ``minimum`` answer 404 there."""
    if version(req) < minimum:
        raise errors.NotFound("")


# --- content negotiation ------------------------------------------------------


def check_accept(req: falcon.Request) -> None:
    """406 unless the client accepts ``application/json``."""
    if errors.accept_quality(req.env.get("HTTP_ACCEPT"), "application/json") <= 0:
        raise errors.NotAcceptable("Only application/json is provided")


def require_json_content(req: falcon.Request) -> None:
    """415 unless the body is declared ``application/json``."""
    content_type = req.env.get("CONTENT_TYPE") or ""
    if content_type.split(";")[0].strip().lower() != "application/json":
        shown = content_type or None
        raise errors.UnsupportedMediaType(
            f"The media type {shown} is not supported, use application/json"
        )


_BODY_FORMATS = jsonschema.FormatChecker(formats=())
_BODY_FORMATS.checks("uuid")(uuidutils.is_uuid_like)
# Query strings use every stock checker (its "uuid" wants the dashed form).
_QUERY_FORMATS = jsonschema.FormatChecker()


def read_json(req: falcon.Request) -> Any:
    """The request body parsed as JSON; 400 ``Malformed JSON`` otherwise."""
    raw = req.bounded_stream.read()
    try:
        return json.loads(raw.decode("utf-8") if raw else "")
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.BadRequest(f"Malformed JSON: {exc}") from None


def _schema_error(
    data: Any, schema: dict, formats: jsonschema.FormatChecker
) -> jsonschema.ValidationError | None:
    """The error upstream reports: jsonschema's ``best_match`` (it looks
    inside ``anyOf``, e.g. ``'x' is not a 'uuid'``), or None when valid."""
    validator = jsonschema.Draft4Validator(schema, format_checker=formats)
    return jsonschema.exceptions.best_match(validator.iter_errors(data))


def validate_body(data: Any, schema: dict) -> None:
    error = _schema_error(data, schema, _BODY_FORMATS)
    if error is not None:
        raise errors.BadRequest(f"JSON does not validate: {error}")


def json_body(req: falcon.Request, schema: dict) -> Any:
    """Content-Type check, parse, then validate against ``schema``."""
    require_json_content(req)
    data = read_json(req)
    validate_body(data, schema)
    return data


def query_pairs(req: falcon.Request) -> list[tuple[str, str]]:
    """Every ``key=value`` of the query string, in order, blanks kept."""
    return parse_qsl(req.query_string or "", keep_blank_values=True)


def query_dict(req: falcon.Request) -> dict[str, str]:
    """The query as a dict where a repeated key keeps its last value."""
    return dict(query_pairs(req))


def validate_query(req: falcon.Request, schema: dict) -> dict[str, str]:
    """Validate the query (last value of each key) against ``schema``."""
    params = query_dict(req)
    error = _schema_error(params, schema, _QUERY_FORMATS)
    if error is not None:
        raise errors.BadRequest(f"Invalid query string parameters: {error}")
    return params


# --- responses ----------------------------------------------------------------


def send_json(resp: falcon.Response, data: Any, status: int = 200) -> None:
    resp.status = status
    resp.content_type = "application/json"
    resp.data = json.dumps(data).encode()


def send_empty(resp: falcon.Response, status: int = 204) -> None:
    resp.status = status
    resp.data = b""
    resp.content_type = None


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def set_cache_headers(
    req: falcon.Request, resp: falcon.Response, last_modified: datetime.datetime | None
) -> None:
    """``Cache-Control``/``Last-Modified`` from 1.15; LM omitted when None."""
    if version(req) < microversion.CACHE_HEADERS:
        return
    resp.set_header("Cache-Control", "no-cache")
    if last_modified is not None:
        stamp = last_modified.replace(tzinfo=datetime.timezone.utc).timestamp()
        resp.set_header("Last-Modified", email.utils.formatdate(stamp, usegmt=True))


def latest(times: list[datetime.datetime | None]) -> datetime.datetime | None:
    """The newest of several updated_at-or-created_at stamps."""
    present = [t for t in times if t is not None]
    return max(present) if present else None


def url_prefix(req: falcon.Request) -> str:
    """The ``SCRIPT_NAME`` the app is mounted under (links start with it)."""
    return req.env.get("SCRIPT_NAME", "")


def absolute_url(req: falcon.Request, path: str) -> str:
    """``<scheme>://<host><prefix><path>`` for the Location header."""
    return f"{req.scheme}://{req.netloc}{url_prefix(req)}{path}"
