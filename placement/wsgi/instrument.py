"""The API's metrics: a request layer, the route label, and who serves them.

``RequestMetrics`` is the outermost layer of the API (below ``/healthcheck``
and ``/openapi.json``): it times every request and counts it by route
template, method and status. The template comes from Falcon's router, written
into the WSGI environment by ``RouteLabel``, so ``/resource_providers/{uuid}``
is one label however many providers exist; a path no route matches is
labelled ``unmatched``, and an unknown method ``other``, so clients cannot
grow the label sets. A 409 whose error code (written there by
``ErrorRenderer``) is ``placement.concurrent_update`` is counted once more, by
route and method.

Who serves the exposition:

* under gunicorn, the master, from the hooks :func:`gunicorn_hooks` returns
  (``placement-api`` installs them; an operator's own gunicorn gets them with
  ``-c python:placement.wsgi.gunicorn_conf``); every worker writes its values
  to the multiprocess directory the master prepared;
* in any other single process, :func:`instrument` serves it itself.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import falcon
import sqlalchemy
from oslo_config import cfg

from placement import auth, db, errors, metrics, monitoring_opts
from placement.wsgi import middleware

#: The environment key holding the matched route template.
ROUTE_KEY = "placement.route_template"

#: The route label of a request no route matched.
UNMATCHED = "unmatched"

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RouteLabel:
    """Falcon middleware: note the matched route's template for the metrics."""

    def process_resource(
        self, req: falcon.Request, resp: falcon.Response, resource: object, params: dict
    ) -> None:
        req.env[ROUTE_KEY] = req.uri_template


class RequestMetrics:
    """Times and counts each request once its status is known."""

    def __init__(self, app: auth.WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        started = time.perf_counter()
        status = "500"  # if the layers below raise instead of answering

        def recording_start_response(
            status_line: str, headers: list[tuple[str, str]], exc_info: object = None
        ) -> object:
            nonlocal status
            status = status_line[:3]
            return start_response(status_line, headers, exc_info)

        try:
            return self.app(environ, recording_start_response)
        finally:
            route = environ.get(ROUTE_KEY, UNMATCHED)
            method = environ.get("REQUEST_METHOD", "")
            method = method if method in _METHODS else "other"
            metrics.request_done(route, method, status, time.perf_counter() - started)
            if environ.get(middleware.ERROR_CODE_KEY) == errors.CONCURRENT_UPDATE:
                metrics.concurrent_update_answered(route, method)


def instrument(
    conf: cfg.ConfigOpts,
    engine: sqlalchemy.Engine,
    routers: Iterable[falcon.App],
    app: auth.WSGIApp,
) -> auth.WSGIApp:
    """``app`` measured, if ``[metrics] enabled``; ``routers`` are its routers.

    Outside a gunicorn prepared by :func:`gunicorn_hooks` (no multiprocess
    directory) this process is the only one and serves its own exposition;
    if several processes try, the second fails to bind and says why.
    """
    if not conf.metrics.enabled:
        return app
    metrics.enable()
    metrics.watch_pool(engine, db.readers_of(engine))
    if not metrics.multiprocess():
        _serve(
            conf.metrics.bind,
            "Under gunicorn with several workers, start it with "
            "'-c python:placement.wsgi.gunicorn_conf'.",
        )
    for router in routers:
        router.add_middleware(RouteLabel())
    return RequestMetrics(app)


def _serve(bind: str, hint: str) -> None:
    """Start the exposition on ``bind``, or say which option cannot be served."""
    host, port = monitoring_opts.bind_address(bind)
    try:
        metrics.serve(host, port)
    except OSError as exc:
        raise RuntimeError(f"Cannot serve metrics on [metrics] bind {bind}: {exc}. {hint}") from exc


@dataclass(frozen=True)
class GunicornHooks:
    """gunicorn server hooks serving every worker's metrics from the master."""

    when_ready: Callable[[Any], None]
    child_exit: Callable[[Any, Any], None]
    on_exit: Callable[[Any], None]

    def settings(self) -> dict[str, Callable[..., None]]:
        """As gunicorn settings, for ``BaseApplication`` ``cfg.set``."""
        return {
            "when_ready": self.when_ready,
            "child_exit": self.child_exit,
            "on_exit": self.on_exit,
        }


def gunicorn_hooks(conf: cfg.ConfigOpts) -> GunicornHooks:
    """The hooks for ``conf``; call it in the master before any worker or app exists.

    With ``[metrics] enabled`` it prepares the multiprocess directory at once
    (the workers inherit it); the master starts the exposition when ready,
    forgets each worker that exits, and removes a directory it made at exit.
    Disabled, the hooks do nothing (gunicorn checks each hook's arity, so
    they are real functions either way).
    """
    enabled = conf.metrics.enabled
    made = metrics.prepare_multiprocess() if enabled else None

    def when_ready(_server: Any) -> None:
        if enabled:
            _serve(conf.metrics.bind, "It must be an address of its own.")

    def child_exit(_server: Any, worker: Any) -> None:
        if enabled:
            metrics.process_exited(worker.pid)

    def on_exit(_server: Any) -> None:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)

    return GunicornHooks(when_ready, child_exit, on_exit)


def describe(conf: cfg.ConfigOpts) -> str:
    """Where the metrics are (or would be) served, for start-up messages."""
    where = f"http://{conf.metrics.bind}/metrics"
    if conf.metrics.enabled:
        return f"Metrics: {where}"
    return f"Metrics: disabled (set [metrics] enabled = true to serve them at {where})"
