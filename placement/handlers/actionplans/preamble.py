"""The per-responder preamble, declared once with :func:`responder`.

Order, as upstream: microversion minimum; then either the policy check (lists
and create) or the lookup of the addressed object followed by the policy
check (single objects: 404 wins over 403); then the JSON body. Domain errors
raised anywhere inside become HTTP errors through :data:`STATUS_OF`, the one
table that maps them (:data:`PATCH_STATUS_OF` for a refused JSON-Patch), with
the helper every handler uses (``base.http_error``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import falcon

from placement import auth, errors, policy
from placement import microversion as mv
from placement.actionplans import errors as domain
from placement.db import transaction
from placement.handlers import base
from placement.handlers.actionplans import validation

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

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

_WATCHER_DENIAL = "Policy doesn't allow {rule} to be performed."


@dataclass(frozen=True)
class Lookup:
    """How a responder finds the object its path names (passed on as ``found``).

    ``uuid_field`` set: the path must hold a uuid, else 400 naming that field
    (action plans and actions are addressed by uuid only).
    """

    get: Callable[[Connection, str], dict]
    uuid_field: str | None = None

    def __call__(self, engine: Any, ident: str) -> dict:
        if self.uuid_field is not None:
            validation.uuid_field(self.uuid_field, ident)
        with transaction.reader(engine) as conn:
            return self.get(conn, ident)


@dataclass(frozen=True)
class Body:
    """The JSON body a responder takes (passed on as ``body``).

    ``argument`` set: an object checked attribute by attribute and named so in
    upstream's messages; otherwise a document (JSON-Patch) checked whole, and
    quoted in the 400 of a refused change.
    """

    schema: dict[str, Any]
    argument: str | None = None

    def read(self, req: falcon.Request) -> Any:
        data = validation.read_json(req.bounded_stream.read())
        if self.argument is not None:
            validation.check_object(data, self.schema, self.argument)
        else:
            validation.check_document(data, self.schema, "patch")
        return data


Responder = Callable[..., None]


def responder(
    rule: str,
    *,
    lookup: Lookup | None = None,
    minimum: mv.Version | None = None,
    body: Body | None = None,
) -> Callable[[Responder], Responder]:
    """Declare a responder's preamble; the responder gets ``found``/``body`` keywords."""

    def decorate(method: Responder) -> Responder:
        @functools.wraps(method)
        def run(
            resource: base.Resource, req: falcon.Request, resp: falcon.Response, **path: str
        ) -> None:
            if minimum is not None and base.version(req) < minimum:
                raise errors.BadRequest(f"API microversion {minimum} or higher is required.")
            kwargs: dict[str, Any] = {}
            data = None
            try:
                if lookup is not None:
                    kwargs["found"] = lookup(resource.deps.engine, path["ident"])
                authorize(resource, req, rule)
                if body is not None:
                    data = kwargs["body"] = body.read(req)
                method(resource, req, resp, **kwargs)
            except domain.ActionPlanError as exc:
                patch = data if body is not None and body.argument is None else None
                table = STATUS_OF if patch is None else PATCH_STATUS_OF
                raise base.http_error(exc, table, patch=patch) from None

        return run

    return decorate


def authorize(resource: base.Resource, req: falcon.Request, rule: str) -> None:
    """Watcher's rule check, with Watcher's denial message."""
    policy.authorize(
        resource.deps.enforcer, req.env[auth.ENVIRON_KEY], rule, denial=_WATCHER_DENIAL
    )
