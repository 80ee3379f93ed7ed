"""Middleware: request ids and the access log, microversions, error rendering,
and the oslo.middleware layers (proxy headers, CORS) configured from ``placement.conf``."""

from __future__ import annotations

import logging
import re
import traceback
import uuid
from collections.abc import Callable, Iterable

import falcon
import sqlalchemy
from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_middleware import cors, http_proxy_to_wsgi

from placement import auth, db, errors
from placement import microversion as mv
from placement.db import engine as db_engine
from placement.handlers import base, intake
from placement.wsgi import rerun, routes

LOG = logging.getLogger("placement.requestlog")  # upstream's name, for log filters
ERROR_LOG = logging.getLogger("placement.error")
#: Seconds a client is told to wait (``Retry-After``) when the database is down:
#: a restarted server usually answers again within a few seconds.
RETRY_AFTER = 2

_GLOBAL_ID = re.compile(r"^req-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$")


class RequestLogMiddleware:
    """Outermost layer: give the request its id, fix up Accept, log access.

    Every response carries ``x-openstack-request-id``; an inbound id of the
    right shape is kept as the global id, for logs only. A request context
    is made first, as upstream's request log makes one, so every line logged
    for the request names it (oslo.log reads oslo.context's current context);
    the auth layer's context, with user and project, replaces it, and the
    access line, upstream's to the byte, then carries them in its prefix.
    """

    def __init__(self, app: auth.WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        request_id = f"req-{uuid.uuid4()}"
        environ[auth.REQUEST_ID_KEY] = request_id
        inbound = environ.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
        if _GLOBAL_ID.match(inbound):
            environ[auth.GLOBAL_REQUEST_ID_KEY] = inbound
        oslo_context.RequestContext(
            request_id=request_id, global_request_id=environ.get(auth.GLOBAL_REQUEST_ID_KEY)
        )  # becomes oslo.context's current context
        path = _request_uri(environ)
        LOG.debug(
            'Starting request: %s "%s %s"',
            environ.get("REMOTE_ADDR", "-"),
            environ.get("REQUEST_METHOD"),
            path,
        )
        if environ.get("HTTP_ACCEPT", "*/*") == "*/*":
            environ["HTTP_ACCEPT"] = "application/json"
        seen: dict = {}

        def recording_start_response(
            status: str, headers: list[tuple[str, str]], exc_info: object = None
        ) -> object:
            headers = [h for h in headers if h[0].lower() != "x-openstack-request-id"]
            headers.append(("x-openstack-request-id", request_id))
            seen["status"] = status
            seen["headers"] = headers
            return start_response(status, headers, exc_info)

        body = self.app(environ, recording_start_response)
        self._log(environ, path, seen)
        return body

    @staticmethod
    def _log(environ: dict, path: str, seen: dict) -> None:
        if not LOG.isEnabledFor(logging.INFO):
            return
        headers = {k.lower(): v for k, v in seen.get("headers", [])}
        LOG.info(
            '%s "%s %s" status: %s len: %s microversion: %s',
            environ.get("REMOTE_ADDR", "-"),
            environ.get("REQUEST_METHOD"),
            path,
            seen.get("status", "-").split(" ")[0],
            headers.get("content-length", "-"),
            headers.get("openstack-api-version", "-").replace("placement ", ""),
        )


def _request_uri(environ: dict) -> str:
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    if environ.get("QUERY_STRING"):
        path += "?" + environ["QUERY_STRING"]
    return path


def with_cors(conf: cfg.ConfigOpts, app: auth.WSGIApp) -> auth.WSGIApp:
    """oslo.middleware's CORS in front of ``app`` once ``[cors] allowed_origin`` is set.

    Unconfigured, no CORS header is ever sent and a preflight ``OPTIONS``
    reaches the router, which answers 405.
    """
    if not conf.cors.allowed_origin:
        return app
    return cors.CORS(app, conf)


def with_proxy_headers(conf: cfg.ConfigOpts, app: auth.WSGIApp) -> auth.WSGIApp:
    """oslo.middleware's HTTPProxyToWSGI once ``[oslo_middleware]
    enable_proxy_headers_parsing`` is on: ``Forwarded``/``X-Forwarded-*`` then
    set the scheme, host and client address that links and the access log use."""
    if not conf.oslo_middleware.enable_proxy_headers_parsing:
        return app
    return http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)


def _without_vary(error: errors.PlacementError) -> errors.PlacementError:
    error.vary = False
    return error


_INFRA_OPTIM_RANGE_HEADERS = {
    "Vary": mv.HEADER,
    "OpenStack-API-Minimum-Version": str(mv.INFRA_OPTIM_MIN_VERSION),
    "OpenStack-API-Maximum-Version": str(mv.INFRA_OPTIM_MAX_VERSION),
}


def _negotiate_infra_optim(req: falcon.Request, header: str | None) -> None:
    """Watcher's negotiation for ``/v1``, and the headers every answer then carries.

    A malformed value is answered without any version header; an unsupported
    one with the range but without ``OpenStack-API-Version``.
    """
    req.context.infra_optim_headers = {}
    try:
        version = mv.parse_infra_optim(header)
    except mv.MalformedVersion as exc:
        raise errors.InfraOptimVersionError(str(exc)) from None
    except mv.UnacceptableVersion as exc:
        req.context.infra_optim_headers = dict(_INFRA_OPTIM_RANGE_HEADERS)
        raise errors.InfraOptimVersionError(str(exc)) from None
    req.context.microversion = version
    req.context.infra_optim_headers = {
        **_INFRA_OPTIM_RANGE_HEADERS,
        mv.HEADER: f"{mv.INFRA_OPTIM_SERVICE_TYPE} {version}",
    }


def _is_infra_optim(req: falcon.Request) -> bool:
    """Whether the request negotiates Watcher's version: ``/v1`` and below, and
    every path on Watcher's endpoint but its version document ``/``."""
    path = req.path
    return mv.is_infra_optim_path(path) or (mv.on_watcher_endpoint(req.env) and path != "/")


class InfraOptimTrailingSlash:
    """Falcon middleware: ``/v1/goals/`` routes as ``/v1/goals``, ``/v1/`` as ``/v1``.

    python-watcherclient puts a slash before every query string
    (``/v1/goals/?limit=2``); Placement's own paths keep their strict routing.
    """

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        path = req.path
        if _is_infra_optim(req) and path.endswith("/"):
            req.path = path[:-1]


def _check_content_length(req: falcon.Request) -> None:
    """A ``Content-Length`` must be an integer, and a body must say its type."""
    length = req.env.get("CONTENT_LENGTH")
    if not length:
        return
    try:
        length_value = int(length)
    except ValueError:
        raise _without_vary(errors.BadRequest("content-length header must be an integer")) from None
    if length_value > 0 and not req.env.get("CONTENT_TYPE"):
        raise _without_vary(
            errors.BadRequest("content-type header required when content-length > 0")
        )


class MicroversionMiddleware:
    """Falcon middleware: negotiate the version, then pre-routing checks, in
    upstream's order: the version, ``Content-Length``, a path no route has.

    Watcher's version document on its own endpoint negotiates nothing, as
    upstream's: its answer has no version header.
    """

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.microversion = None
        req.context.infra_optim_headers = None
        header = req.get_header(mv.HEADER)
        infra_optim = _is_infra_optim(req)
        if infra_optim:
            _negotiate_infra_optim(req, header)
        elif not mv.on_watcher_endpoint(req.env):
            self._negotiate_placement(req, header)
        _check_content_length(req)
        if not infra_optim and routes.has_empty_segment(req.path):
            raise _without_vary(errors.NotFound(""))

    @staticmethod
    def _negotiate_placement(req: falcon.Request, header: str | None) -> None:
        try:
            req.context.microversion = mv.parse(header)
        except mv.BadVersion as exc:
            raise errors.BadRequest(f"Invalid microversion: {exc}") from None
        except mv.UnacceptableVersion as exc:
            raise errors.NotAcceptable(
                f"Invalid microversion: {exc}",
                extra={"max_version": str(mv.MAX_VERSION), "min_version": str(mv.MIN_VERSION)},
            ) from None

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: object, req_succeeded: bool
    ) -> None:
        headers = getattr(req.context, "infra_optim_headers", None)
        if headers is not None:
            for name, value in headers.items():
                resp.set_header(name, value)
            return
        version = getattr(req.context, "microversion", None)
        if version is not None:
            resp.set_header(mv.HEADER, f"{mv.SERVICE_TYPE} {version}")
            if getattr(req.context, "vary", True):
                resp.set_header("vary", mv.VARY)


class TextGuard:
    """Falcon middleware: a path field or query parameter no database can
    store is a 400 naming it, before the responder runs.

    That is a NUL (``%00``: PostgreSQL refuses it, upstream answers 500
    there) or a lone surrogate; on a database that stores 3-byte UTF-8 only
    (:func:`db_engine.holds_only_3byte_text`, asked once), also a character
    beyond U+FFFF. Bodies get the same checks once validated
    (``req.context.three_byte_text`` tells them which database this is; see
    :func:`intake.require_storable`).
    """

    def __init__(self, engine: sqlalchemy.Engine) -> None:
        self.three_byte = db_engine.holds_only_3byte_text(engine)

    def process_resource(
        self, req: falcon.Request, resp: falcon.Response, resource: object, params: dict
    ) -> None:
        if not hasattr(resource, f"on_{req.method.lower()}"):
            return
        req.context.three_byte_text = self.three_byte
        for name, value in params.items():
            intake.require_storable(name, value, three_byte=self.three_byte)
        try:
            pairs = base.query_pairs(req)
        except errors.BadRequest:
            return  # not UTF-8: a 400 from the responder if it reads the query, as upstream
        for name, value in pairs:
            intake.require_storable("query parameter", name, three_byte=self.three_byte)
            intake.require_storable(name, value, three_byte=self.three_byte)


def _database_answer(error: Exception, reading: bool) -> errors.PlacementError | None:
    """The 503 or 409 a database error is answered with (logged), or None
    when it is not one of those."""
    if isinstance(error, db.CommitInDoubt):
        ERROR_LOG.warning("Database connection lost during COMMIT: %s", error.orig)
        message = (
            "The database connection was lost while committing; "
            "the change may or may not have been made."
        )
    elif db.is_unavailable_db_error(error):
        ERROR_LOG.warning("Database unavailable: %s", getattr(error, "orig", error))
        message = "The database is unavailable."
    elif db.is_conflict_db_error(error):
        ERROR_LOG.warning(
            "Database conflicts outlasted the retries: %s", getattr(error, "orig", error)
        )
        if not reading:
            return errors.Conflict(
                "The database kept aborting the update under concurrent updates; try again.",
                code=errors.CONCURRENT_UPDATE,
            )
        message = "The database kept aborting the read under concurrent updates."
    else:
        return None
    return errors.ServiceUnavailable(message, retry_after=RETRY_AFTER)


#: The environment key holding the error code of an error answer (for metrics).
ERROR_CODE_KEY = "placement.error_code"


class ErrorRenderer:
    """Turns every exception into upstream's error document.

    ``allow_by_route`` maps a route template to its ``Allow`` header value.
    """

    def __init__(self, allow_by_route: dict[str, str]) -> None:
        self.allow_by_route = allow_by_route

    def install(self, app: falcon.App) -> None:
        app.add_error_handler(Exception, self.handle_unexpected)
        app.add_error_handler(sqlalchemy.exc.DBAPIError, self.handle_database)
        app.add_error_handler(falcon.HTTPError, self.handle_falcon)
        app.add_error_handler(errors.PlacementError, self.handle)

    def handle(
        self, req: falcon.Request, resp: falcon.Response, error: errors.PlacementError, params: dict
    ) -> None:
        version = getattr(req.context, "microversion", None)
        with_code = version is not None and version >= mv.ERROR_CODES
        resp.status = error.status
        req.env[ERROR_CODE_KEY] = error.code
        req.context.vary = error.vary
        for name, value in error.headers.items():
            resp.set_header(name, value)
        if req.method == "HEAD":
            resp.content_type = "text/html; charset=UTF-8"
            resp.data = b""
            return
        content_type, body = errors.render(
            error, req.env, request_id=req.env.get(auth.REQUEST_ID_KEY), with_code=with_code
        )
        resp.content_type = content_type
        resp.data = body

    def handle_falcon(
        self, req: falcon.Request, resp: falcon.Response, error: falcon.HTTPError, params: dict
    ) -> None:
        if isinstance(error, falcon.HTTPMethodNotAllowed):
            allow = self.allow_by_route.get(req.uri_template or "")
            self.handle(req, resp, errors.MethodNotAllowed(allow), params)
        elif error.status_code == 404:
            self.handle(req, resp, _without_vary(errors.NotFound("")), params)
        else:
            generic = errors.PlacementError(error.description or error.title or "")
            generic.status = error.status_code
            self.handle(req, resp, generic, params)

    def handle_database(
        self, req: falcon.Request, resp: falcon.Response, error: Exception, params: dict
    ) -> None:
        """A database that cannot be reached is a 503 the client may retry, not a
        500; so is a read the database kept aborting. A write it kept aborting
        (Galera certification conflicts outlasting the retries) is a 409
        ``placement.concurrent_update``, which clients already retry. A read
        whose error a new attempt may cure is marked for
        :class:`placement.wsgi.rerun.RerunReads`, which answers it only when
        its retry time is spent."""
        reading = req.method in rerun.READ_METHODS
        if reading and db.is_retryable_db_error(error):
            req.env[rerun.RERUN_KEY] = True
        answer = _database_answer(error, reading)
        if answer is None:
            self.handle_unexpected(req, resp, error, params)
        else:
            self.handle(req, resp, answer, params)

    def handle_unexpected(
        self, req: falcon.Request, resp: falcon.Response, error: Exception, params: dict
    ) -> None:
        ERROR_LOG.error(
            "Uncaught exception [%s] %s %s\n%s",
            req.env.get(auth.REQUEST_ID_KEY),
            req.method,
            req.path,
            "".join(traceback.format_exception(error)),
        )
        self.handle(req, resp, errors.InternalError("Uncaught exception"), params)
