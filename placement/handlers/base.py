"""What every handler shares: its dependencies, its answers to domain errors,
JSON in and out, query strings, cache headers and links.

Handlers stay thin: parse and validate, authorize, call one function of the
object layer, render a plain dict. Each responder declares its preamble with
:func:`placement.handlers.preamble.responder`; these helpers hold the parsing
and rendering rules that are the same for every route.
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import falcon
import jsonschema
from oslo_config import cfg
from oslo_policy import policy as oslo_policy
from oslo_utils import uuidutils

from placement import errors, microversion
from placement.handlers import intake
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
#: says otherwise: the code each error has everywhere, then the families. A
#: not-found no table words is upstream's escaped one, without ``Vary``
#: (:class:`errors.EscapedNotFound`); a route whose upstream handler words it
#: answers it as :class:`errors.NotFound` in its own table.
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
    exceptions.NotFound: Answer(errors.EscapedNotFound),
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


# --- versions ---------------------------------------------------------------


def version(req: falcon.Request) -> microversion.Version:
    return req.context.microversion


# --- bodies and query strings -------------------------------------------------

_BODY_FORMATS = jsonschema.FormatChecker(formats=())
_BODY_FORMATS.checks("uuid")(uuidutils.is_uuid_like)
# Query strings use every stock checker (its "uuid" wants the dashed form).
_QUERY_FORMATS = jsonschema.FormatChecker()


def read_json(req: falcon.Request) -> Any:
    """The request body parsed as JSON; 400 ``Malformed JSON`` otherwise
    (:func:`intake.parse_json`: no ``NaN``, no deep nesting either)."""
    try:
        return intake.parse_json(intake.read_body(req))
    except ValueError as exc:
        raise errors.BadRequest(f"Malformed JSON: {exc}") from None


def three_byte_text(req: falcon.Request) -> bool:
    """Whether the database stores 3-byte UTF-8 only (set by the text guard)."""
    return bool(getattr(req.context, "three_byte_text", False))


def _schema_error(
    data: Any, schema: dict, formats: jsonschema.FormatChecker
) -> jsonschema.ValidationError | None:
    """The error upstream reports: jsonschema's ``best_match`` (it looks
    inside ``anyOf``, e.g. ``'x' is not a 'uuid'``), or None when valid.

    The validator is the one ``jsonschema.validate`` picks for a schema
    naming no draft, as upstream's calls do: the latest draft, where a
    whole-number float (``8.0``) is an integer.
    """
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=formats)
    return intake.schema_error(validator, data)


class _Abridged:
    """A refused value too long to quote whole: its ``repr`` cut to
    :data:`errors.MAX_MESSAGE` characters."""

    def __init__(self, text: str) -> None:
        self.text = errors.echoable(text)

    def __repr__(self) -> str:
        return self.text


def _described(error: jsonschema.ValidationError) -> str:
    """``str(error)`` as upstream shows it, without quoting a huge value whole.

    jsonschema's text repeats the refused value twice, the second time
    pretty-printed: for a large body that takes seconds and makes an answer
    many times its size. A value longer than :data:`errors.MAX_MESSAGE`
    characters is quoted cut instead (short ones exactly as upstream).
    """
    if len(error.message) > errors.MAX_MESSAGE:
        error.message = errors.echoable(error.message)
    text = repr(error.instance)
    if len(text) > errors.MAX_MESSAGE:
        error.instance = _Abridged(text)
    return str(error)


def validate_body(data: Any, schema: dict) -> None:
    error = _schema_error(data, schema, _BODY_FORMATS)
    if error is not None:
        raise errors.BadRequest(f"JSON does not validate: {_described(error)}")


_PAIR_SEPARATOR = re.compile(rb"[&;]")


def _unquote(raw: bytes) -> bytes:
    """``%XX`` escapes decoded the way upstream's WebOb does: ``int(.., 16)``
    of the two characters after ``%`` (so ``%f`` at the end is byte 0x0f),
    anything else left as it is."""
    head, *rest = raw.split(b"%")
    parts = [head]
    for item in rest:
        try:
            parts.append(bytes([int(item[:2], 16)]) + item[2:])
        except ValueError:
            parts.append(b"%" + item)
    return b"".join(parts)


def query_pairs(req: falcon.Request) -> list[tuple[str, str]]:
    """Every ``key=value`` of the query string, in order, blanks kept.

    Split as upstream does: ``&`` and ``;`` both separate pairs, ``+`` is a
    space; a name or value that is not UTF-8 is a 400.
    """
    raw = (req.query_string or "").encode("latin-1").replace(b"+", b" ")
    pairs = []
    for item in _PAIR_SEPARATOR.split(raw):
        if not item:
            continue
        name, _, value = item.partition(b"=")
        try:
            pairs.append((_unquote(name).decode(), _unquote(value).decode()))
        except UnicodeDecodeError as exc:
            raise errors.BadRequest(f"Invalid query string parameters: {exc}") from None
    return pairs


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
