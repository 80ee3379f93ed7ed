"""The ``/v1`` responder preamble, declared once with :func:`responder`.

Built on the same steps as Placement's (:func:`placement.handlers.preamble.preamble`),
ordered as Watcher does: microversion minimum (a 400 there, not a 404); then
either the policy check (lists and create) or the lookup of the addressed
object followed by the policy check (single objects: 404 wins over 403); then
the JSON body or the list query. Domain errors raised by the lookup or the responder become
HTTP errors through :data:`STATUS_OF`, the one table that maps them
(:data:`PATCH_STATUS_OF` for a refused JSON-Patch), with the helper every
handler uses (``base.http_error``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import falcon

from placement import errors
from placement import microversion as mv
from placement.actionplans import errors as domain
from placement.handlers import base, intake, preamble
from placement.handlers.actionplans import validation
from placement.schemas import Versioned

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: Domain error family → the HTTP error answering it (first match wins).
STATUS_OF: base.Answers = {
    domain.NotFound: base.Answer(errors.NotFound),
    domain.Conflict: base.Answer(errors.Conflict),
    domain.Invalid: base.Answer(errors.BadRequest),
}
#: The same for a PATCH: a refused one quotes the patch, as upstream.
PATCH_STATUS_OF: base.Answers = {
    **STATUS_OF,
    domain.Invalid: base.Answer(
        errors.BadRequest, "Couldn't apply patch '{patch!r}'. Reason: {message}"
    ),
}

#: A path field holding a uuid (action plans, actions).
_UUID = {"type": "string", "format": "uuid"}

_WATCHER_DENIAL = "Policy doesn't allow {rule} to be performed."


@dataclass(frozen=True)
class Lookup:
    """How a responder finds the object its path names: a preamble step that
    takes the path's ``ident`` and passes the object on as ``found``.

    ``get`` is the object layer's show function (it opens its own read
    transaction). ``uuid_field`` set: the path must hold a uuid, else 400
    naming that field (action plans and actions are addressed by uuid only).
    """

    get: Callable[[Engine, str], Any]
    uuid_field: str | None = None

    @property
    def refuses(self) -> frozenset[int]:
        return frozenset({404} if self.uuid_field is None else {400, 404})

    def __call__(self, call: preamble.Call) -> None:
        ident = call.kwargs.pop("ident")
        if self.uuid_field is not None:
            validation.uuid_field(self.uuid_field, ident)
        try:
            call.kwargs["found"] = self.get(call.resource.deps.engine, ident)
        except domain.ActionPlanError as exc:
            raise base.http_error(exc, STATUS_OF) from None


@dataclass(frozen=True)
class Body:
    """The JSON body a responder takes: a preamble step passing it on as ``data``.

    ``argument`` set: an object checked attribute by attribute and named so in
    upstream's messages; otherwise a document (JSON-Patch) checked whole, and
    quoted in the 400 of a refused change.
    """

    schema: dict[str, Any]
    argument: str | None = None

    #: A body that is no JSON, or breaks the schema.
    refuses = frozenset({400})

    def __call__(self, call: preamble.Call) -> None:
        data = validation.read_json(intake.read_body(call.req))
        if self.argument is not None:
            validation.check_object(data, self.schema, self.argument)
        else:
            validation.check_document(data, self.schema, "patch")
        intake.require_storable_json(data, three_byte=base.three_byte_text(call.req))
        call.kwargs["data"] = data


@dataclass(frozen=True)
class Query:
    """The list query a responder takes: a preamble step passing it on as ``params``
    (unknown arguments, then each value against its property)."""

    schema: dict[str, Any]

    refuses = frozenset({400})

    def __call__(self, call: preamble.Call) -> None:
        params = base.query_dict(call.req)
        validation.check_query(params, self.schema)
        call.kwargs["params"] = params


def _too_old(minimum: mv.Version) -> errors.PlacementError:
    return errors.BadRequest(f"API microversion {minimum} or higher is required.")


def _steps(
    rule: str | None,
    lookup: Lookup | None,
    minimum: mv.Version | None,
    body: Body | None,
    query: Query | None,
) -> list[preamble.Step]:
    """The preamble's steps in Watcher's order (see the module)."""
    steps: list[preamble.Step] = []
    if minimum is not None:
        steps.append(preamble.since(minimum, _too_old))
    if lookup is not None:
        steps.append(lookup)
    if rule is not None:
        steps.append(preamble.authorized(rule, denial=_WATCHER_DENIAL))
    steps.extend(step for step in (body, query) if step is not None)
    return steps


def responder(
    rule: str | None,
    *,
    lookup: Lookup | None = None,
    minimum: mv.Version | None = None,
    body: Body | None = None,
    query: Query | None = None,
    returns: preamble.Returns | None = None,
) -> Callable[[base.Responder], base.Responder]:
    """Declare a ``/v1`` responder's preamble in Watcher's order (see the module).

    The responder gets ``found``, ``data`` and ``params`` keywords; the domain
    errors it raises become HTTP errors, a refused JSON-Patch quoted.
    ``returns`` states the answers' bodies by status. ``rule`` is None only
    for the version documents (``root.py``), which upstream checks no rule for.
    """
    steps = _steps(rule, lookup, minimum, body, query)
    quote_patch = body is not None and body.argument is None
    declared = preamble.Declaration(
        rule,
        tuple(steps),
        body=None if body is None else Versioned(body.schema),
        query=None if query is None else Versioned(query.schema),
        path={} if lookup is None or lookup.uuid_field is None else {"ident": _UUID},
        returns=dict(returns or {}),
        answers=(PATCH_STATUS_OF if quote_patch else STATUS_OF,),
    )

    def decorate(method: base.Responder) -> base.Responder:
        @functools.wraps(method)
        def translated(
            resource: base.Resource, req: falcon.Request, resp: falcon.Response, **kwargs: Any
        ) -> None:
            try:
                method(resource, req, resp, **kwargs)
            except domain.ActionPlanError as exc:
                patch = kwargs["data"] if quote_patch else None
                table = STATUS_OF if patch is None else PATCH_STATUS_OF
                raise base.http_error(exc, table, patch=patch) from None

        return preamble.declare(preamble.preamble(*steps)(translated), declared)

    return decorate
