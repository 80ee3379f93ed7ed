"""The declared preamble: what a responder checks before its body runs.

Each responder states its preamble with :func:`responder`: the checks
before the policy rule in the route's own order (:func:`since`,
:func:`accepts_json`, :func:`sends_json`), the rule, the lookup of what the
path names, then the body or query validated against its schema at the
request's microversion. The declaration is data as well as code: a frozen
:class:`Declaration` on the responder, each step saying what it refuses
(:func:`refusing`), from which ``placement/wsgi/openapi.py`` describes the
API without a request. The ``/v1`` variant
(``handlers/actionplans/preamble.py``) is built on the same :func:`preamble`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import falcon

from placement import auth, errors, microversion, policy
from placement.handlers import intake
from placement.handlers.base import (
    OBJECT_ANSWERS,
    Answers,
    Resource,
    Responder,
    read_json,
    three_byte_text,
    validate_body,
    validate_query,
    version,
)
from placement.schemas import Schema, Versioned


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
