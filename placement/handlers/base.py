"""What every handler shares: its dependencies, its preamble and request/response helpers.

Handlers stay thin: parse and validate, authorize, call one function of the
object layer, render a plain dict. Each responder declares its preamble with
:func:`responder` (checks before the policy rule, the rule, the lookup of
what the path names, the body or query schema); these helpers hold the
parsing and rendering rules that are the same for every route.
"""

from __future__ import annotations

import contextlib
import datetime
import email.utils
import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

import falcon
import jsonschema
from oslo_config import cfg
from oslo_policy import policy as oslo_policy
from oslo_utils import uuidutils

from placement import auth, errors, microversion, policy
from placement.handlers import intake
from placement.objects import exceptions
from placement.schemas import Schema, Versioned

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


# --- the preamble -------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """A request on its way to a responder, as the preamble's steps see it.

    ``kwargs`` starts as the path's fields; steps add what they find (the
    provider, the parsed body) and the responder receives them all.
    """

    resource: Resource
    req: falcon.Request
    kwargs: dict[str, Any]


#: One step of a preamble: it refuses the request (raises) or adds to ``call.kwargs``.
Step = Callable[[Call], None]


def refusing(*statuses: int) -> Callable[[Step], Step]:
    """Mark a preamble step with the HTTP statuses it may refuse a request with.

    Every step a :class:`Declaration` holds must say (a function through this
    decorator, a step object through a ``refuses`` attribute), so the API
    description names each refusal a route can answer.
    """

    def mark(step: Step) -> Step:
        step.__dict__["refuses"] = frozenset(statuses)
        return step

    return mark


def refusals(step: Step) -> frozenset[int]:
    """The statuses ``step`` may refuse with (see :func:`refusing`)."""
    try:
        return frozenset(step.refuses)  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(f"preamble step {step!r} does not say what it refuses") from None


#: The response bodies of a responder by HTTP status: a schema through the
#: microversions (:data:`placement.schemas.NO_BODY` where there is none).
Returns = Mapping[int, Versioned]


@dataclass(frozen=True)
class Declaration:
    """A responder's declared preamble and answers, readable without a request.

    :func:`responder` attaches one to every responder it decorates (as
    ``declarations``, a tuple: :func:`by_version` joins two); the OpenAPI
    description (``placement/wsgi/openapi.py``) is built from them.
    ``first`` is the first microversion serving it (None: every one);
    ``until`` the first one that no longer does (None: none). ``path`` gives
    the schema of a path field the responder checks (others are any text).
    """

    rule: str | None
    steps: tuple[Step, ...]
    body: Versioned | None = None
    query: Versioned | None = None
    path: Mapping[str, Schema] = field(default_factory=dict)
    returns: Returns = field(default_factory=dict)
    answers: tuple[Answers, ...] = ()
    first: microversion.Version | None = None
    until: microversion.Version | None = None

    @property
    def accepts_json(self) -> bool:
        return accepts_json in self.steps

    @property
    def sends_json(self) -> bool:
        return sends_json in self.steps

    @property
    def since(self) -> Since | None:
        """The declared minimum microversion and its refusal, if any."""
        return next((step for step in self.steps if isinstance(step, Since)), None)


def declarations(responder: Responder) -> tuple[Declaration, ...]:
    """What ``responder`` declares (empty for one declared by no decorator)."""
    return getattr(responder, "declarations", ())


def declare(run: Responder, *declared: Declaration) -> Responder:
    """``run`` carrying ``declared`` (read back by :func:`declarations`; the
    wrappers of :class:`Resource` copy it along)."""
    run.__dict__["declarations"] = declared
    return run


def preamble(*steps: Step) -> Callable[[Responder], Responder]:
    """Run ``steps`` in the order given before the responder.

    The one mechanism under :func:`responder` and the ``/v1`` variant in
    ``handlers/actionplans/preamble.py``: each orders the steps as its API does.
    """

    def decorate(method: Responder) -> Responder:
        @functools.wraps(method)
        def run(
            resource: Resource, req: falcon.Request, resp: falcon.Response, **path: Any
        ) -> None:
            call = Call(resource, req, dict(path))
            for step in steps:
                step(call)
            method(resource, req, resp, **call.kwargs)

        return run

    return decorate


def responder(
    rule: str | None,
    *before: Step,
    target: Callable[[falcon.Request], dict] | None = None,
    lookup: Step | None = None,
    body: Versioned | None = None,
    query: Versioned | None = None,
    path: Mapping[str, Schema] | None = None,
    returns: Returns | None = None,
) -> Callable[[Responder], Responder]:
    """Declare a Placement responder's preamble, in upstream's order.

    First the checks ``before`` the rule, in the order given (:func:`since`,
    :func:`accepts_json`, :func:`sends_json`: upstream's order differs per
    route), then the policy ``rule`` (with ``target(req)`` as its target if
    given; None only for the version document, which has none), then
    ``lookup`` (so 403 comes before 404 and no SQL runs for a refused
    caller), then the JSON ``body`` (passed on as ``data``) or the ``query``
    string (passed on as ``params``), validated against the schema at the
    request's microversion. ``returns`` states the answers' bodies by status,
    ``path`` the fields of the path the responder itself checks.
    """
    steps = [*before]
    if rule is not None:
        steps.append(authorized(rule, target=target))
    if lookup is not None:
        steps.append(lookup)
    if body is not None:
        steps.append(_json_body(body))
    if query is not None:
        steps.append(_query(query))
    declared = Declaration(
        rule,
        tuple(steps),
        body=body,
        query=query,
        path=dict(path or {}),
        returns=dict(returns or {}),
        answers=(OBJECT_ANSWERS,),
    )
    run_steps = preamble(*steps)

    def decorate(method: Responder) -> Responder:
        return declare(run_steps(method), declared)

    return decorate


def by_version(boundary: microversion.Version, below: Responder, above: Responder) -> Responder:
    """One method of a route serving two operations: ``below`` under ``boundary``,
    ``above`` from it, each with its own declared preamble."""

    def run(resource: Resource, req: falcon.Request, resp: falcon.Response, **path: Any) -> None:
        chosen = above if version(req) >= boundary else below
        chosen(resource, req, resp, **path)

    older = tuple(replace(each, until=boundary) for each in declarations(below))
    newer = tuple(replace(each, first=boundary) for each in declarations(above))
    return declare(run, *older, *newer)


def _absent(minimum: microversion.Version) -> errors.PlacementError:
    """A route below its first microversion does not exist: a 404 without a message."""
    return errors.NotFound("")


@dataclass(frozen=True)
class Since:
    """The step refusing requests below ``minimum`` with ``refusal(minimum)``."""

    minimum: microversion.Version
    refusal: Callable[[microversion.Version], errors.PlacementError] = _absent

    @property
    def refuses(self) -> frozenset[int]:
        return frozenset({self.refusal(self.minimum).status})

    def __call__(self, call: Call) -> None:
        if version(call.req) < self.minimum:
            raise self.refusal(self.minimum)


def since(
    minimum: microversion.Version,
    refusal: Callable[[microversion.Version], errors.PlacementError] = _absent,
) -> Since:
    """Refuse requests below ``minimum`` with ``refusal(minimum)``."""
    return Since(minimum, refusal)


@refusing(406)
def accepts_json(call: Call) -> None:
    """406 unless the client accepts ``application/json``."""
    if errors.accept_quality(call.req.env.get("HTTP_ACCEPT"), "application/json") <= 0:
        raise errors.NotAcceptable("Only application/json is provided")


@refusing(415)
def sends_json(call: Call) -> None:
    """415 unless the body is declared ``application/json``."""
    content_type = call.req.env.get("CONTENT_TYPE") or ""
    if content_type.split(";")[0].strip().lower() != "application/json":
        shown = content_type or None
        raise errors.UnsupportedMediaType(
            f"The media type {shown} is not supported, use application/json"
        )


def authorized(
    rule: str,
    *,
    target: Callable[[falcon.Request], dict] | None = None,
    denial: str = policy.DENIAL,
) -> Step:
    """403 unless the policy ``rule`` allows the caller (``denial`` is the refusal's text)."""

    @refusing(403)
    def step(call: Call) -> None:
        context = call.req.env[auth.ENVIRON_KEY]
        asked = target(call.req) if target is not None else None
        policy.authorize(call.resource.deps.enforcer, context, rule, asked, denial)

    return step


def _json_body(schema: Versioned) -> Step:
    """Parse the body as JSON (400 otherwise), validate it (the 415 check is
    declared), then refuse what the database could not store (a 400 where
    upstream's database fails)."""

    @refusing(400)
    def step(call: Call) -> None:
        data = read_json(call.req)
        validate_body(data, schema.at(version(call.req)))
        intake.require_storable_json(data, three_byte=three_byte_text(call.req))
        call.kwargs["data"] = data

    return step


def _query(schema: Versioned) -> Step:
    """Validate the query string (the last value of each key)."""

    @refusing(400)
    def step(call: Call) -> None:
        call.kwargs["params"] = validate_query(call.req, schema.at(version(call.req)))

    return step


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
