"""Who is asking: the request context and the ``noauth2`` development auth.

Authentication middleware (keystonemiddleware in production, ``noauth2`` in
development) leaves identity headers in the WSGI environ;
:class:`ContextMiddleware` turns them into an oslo.context
``RequestContext`` that the policy engine understands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from oslo_context import context as oslo_context

from placement import errors

ENVIRON_KEY = "placement.context"
REQUEST_ID_KEY = "openstack.request_id"
GLOBAL_REQUEST_ID_KEY = "openstack.global_request_id"

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]

_UNAUTHORIZED_BODY = json.dumps(
    {
        "message": errors._EXPLANATIONS[401] + "<br /><br />\n\n\n",
        "code": "401 Unauthorized",
        "title": "Unauthorized",
    }
).encode()


def unauthorized(environ: dict, start_response: Callable) -> list[bytes]:
    """The plain 401 upstream answers before any placement handling.

    That is the web framework's own page, not the placement error document:
    HTML for a client preferring it (the page every other error gets), else
    the framework's JSON.
    """
    page = errors.html_page(errors.Unauthorized(), environ)
    content_type, body = (
        ("application/json", _UNAUTHORIZED_BODY) if page is None else (errors.HTML, page)
    )
    start_response(
        "401 Unauthorized",
        [("Content-Type", content_type), ("Content-Length", str(len(body)))],
    )
    return [body]


class NoAuthMiddleware:
    """Trust the token: ``user[:project]``; ``admin`` gets the admin role.

    Only for development and tests. ``X-Roles`` overrides the roles, an
    explicit ``X-Project-Id`` wins over the token's project, and
    ``OpenStack-System-Scope`` makes the request system-scoped (no project).
    """

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/":
            return self.app(environ, start_response)
        token = environ.get("HTTP_X_AUTH_TOKEN")
        if token is None:
            return unauthorized(environ, start_response)
        user_id, _sep, project_id = token.partition(":")
        project_id = project_id or user_id
        if "HTTP_X_ROLES" in environ:
            roles = environ["HTTP_X_ROLES"]
        else:
            roles = "admin" if user_id == "admin" else ""
        environ["HTTP_X_USER_ID"] = user_id
        if not environ.get("HTTP_OPENSTACK_SYSTEM_SCOPE"):
            environ["HTTP_X_TENANT_ID"] = project_id
        environ["HTTP_X_ROLES"] = roles
        return self.app(environ, start_response)


class ContextMiddleware:
    """Build the request context; no user (outside ``/``) answers 401."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        ctx = oslo_context.RequestContext.from_environ(
            environ,
            request_id=environ.get(REQUEST_ID_KEY),
            global_request_id=environ.get(GLOBAL_REQUEST_ID_KEY),
        )
        if ctx.user_id is None and environ.get("PATH_INFO") not in ("/", ""):
            return unauthorized(environ, start_response)
        environ[ENVIRON_KEY] = ctx
        return self.app(environ, start_response)
