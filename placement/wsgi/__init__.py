"""The WSGI application factory: engine, routes and middleware in one place."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import falcon
import sqlalchemy
from oslo_config import cfg

from placement import auth, logs, policy
from placement import conf as placement_conf
from placement import microversion as mv
from placement.console import assets as console_assets
from placement.db import engine as db_engine
from placement.db import migration, standard
from placement.handlers import base
from placement.objects.actionplans import catalog
from placement.wsgi import endpoint, health, instrument, limits, middleware, openapi, rerun, routes

LOG = logging.getLogger("placement")


def build_falcon_app(deps: base.Deps, table: routes.Table) -> falcon.App:
    """The router of ``table`` with our middleware and error rendering; no auth layers."""
    app = falcon.App(
        middleware=(
            middleware.InfraOptimTrailingSlash(),
            middleware.MicroversionMiddleware(),
            limits.RequestLimits(deps.conf.api.max_request_body_size),
            middleware.TextGuard(deps.engine),
        )
    )
    app.req_options.keep_blank_qs_values = True
    # Bodiless answers (201 of POST /resource_providers <1.20) have no Content-Type.
    # Falcon accepts None here (no default) though its annotation says str.
    app.resp_options.default_media_type = None  # type: ignore[assignment]
    app.req_options.auto_parse_qs_csv = False
    app.req_options.strip_url_path_trailing_slash = False
    allow = {}
    for template, resource_class, methods in table:
        app.add_route(template, resource_class(deps))
        allow[template] = methods
    middleware.ErrorRenderer(allow).install(app)
    return app


class PlacementApp:
    """The complete WSGI application, holding the engine it created so that
    tests and tools can dispose of it (``placement_engine``)."""

    def __init__(self, wsgi_app: auth.WSGIApp, engine: sqlalchemy.Engine) -> None:
        self.wsgi_app = wsgi_app
        self.placement_engine = engine

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        return self.wsgi_app(environ, start_response)


def _auth_layers(conf: cfg.ConfigOpts, app: auth.WSGIApp) -> auth.WSGIApp:
    app = auth.ContextMiddleware(app)
    if conf.api.auth_strategy == "noauth2":
        return auth.NoAuthMiddleware(app)
    from placement import keystone  # optional dependency, imported on demand

    return keystone.wrap(conf, app)


def _sync_actionplan_catalog(engine: sqlalchemy.Engine) -> None:
    """Write the built-in goals, strategies and scoring engines, if ``db sync`` created
    their tables.

    A database last synced by upstream Placement (or by a release of ours
    without action plans) lacks them; the Placement API still serves it, and
    ``/v1`` needs ``placement-manage db sync`` first.
    """
    if migration.actionplan_revision(engine) is None:
        LOG.warning("No action-plan tables: run 'placement-manage db sync' to serve /v1")
        return
    catalog.sync_catalog(engine)


def _require_schema(engine: sqlalchemy.Engine) -> None:
    """An unmigrated database stops start-up with what to do, not a traceback
    from the first query."""
    if migration.current_revision(engine) is None:
        where = engine.url.render_as_string(hide_password=True)
        raise placement_conf.ConfigError(
            f"the database {where} has no Placement schema: run "
            "'placement-manage db sync', or set [placement_database] sync_on_startup = True"
        )


def _prepared_engine(conf: cfg.ConfigOpts) -> sqlalchemy.Engine:
    """The engine on a database ready to serve: migrated if configured so, then
    the standard names and the action-plan catalog written."""
    engine = db_engine.create_engine(conf, url=placement_conf.database_url(conf))
    try:
        if conf.placement_database.sync_on_startup:
            migration.upgrade_all(engine)
        _require_schema(engine)
        standard.sync_standard_names(engine)
        _sync_actionplan_catalog(engine)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _routers(deps: base.Deps, watcher_only: bool) -> list[falcon.App]:
    """The Falcon routers of the application, Watcher's endpoint's first."""
    watcher = build_falcon_app(deps, routes.WATCHER_ROUTES)
    return [watcher] if watcher_only else [watcher, build_falcon_app(deps, routes.ROUTES)]


def _stack(deps: base.Deps, engine: sqlalchemy.Engine, watcher_only: bool) -> auth.WSGIApp:
    """The layers of "A request's way" (ARCHITECTURE.md), built inside out: a
    request meets /healthcheck, /openapi.json, metrics, proxy headers, request
    log, the console's pages, Watcher's endpoint, CORS, auth, then context,
    then its endpoint's router, whose reads run again when the database
    dropped them. Watcher's API alone has no console and no /openapi.json
    (both describe Placement's port)."""
    conf = deps.conf
    routers = _routers(deps, watcher_only)
    bottom = routers[0] if watcher_only else endpoint.Routers(routers[1], routers[0])
    reads_rerun = rerun.RerunReads(bottom, db_engine.retry_policy_of(engine))
    app = middleware.with_cors(conf, _auth_layers(conf, reads_rerun))
    app = endpoint.WatcherMount(app, None if watcher_only else mv.WATCHER_ENDPOINT_PREFIX)
    if not watcher_only:
        app = console_assets.ConsoleAssets(app, conf.api.auth_strategy)
    app = middleware.with_proxy_headers(conf, middleware.RequestLogMiddleware(app))
    app = instrument.instrument(conf, engine, routers, app)
    return health.HealthRoute(conf, app if watcher_only else openapi.DescriptionRoute(app))


def create_app(conf: cfg.ConfigOpts, *, watcher_only: bool = False) -> PlacementApp:
    """Build the whole WSGI application from a loaded configuration.

    ``watcher_only``: Watcher's API alone, its version document at ``/``
    (``placement.wsgi.watcher``); otherwise Placement's API with Watcher's
    under ``/v1`` and Watcher's endpoint under ``/infra-optim``
    (``placement.wsgi.api``). Fails closed, as upstream's: no
    ``[placement_database] connection`` or an unmigrated database is a
    :class:`placement.conf.ConfigError`, and ``[api] auth_strategy`` is
    keystone unless set otherwise.
    """
    engine = _prepared_engine(conf)
    deps = base.Deps(conf=conf, engine=engine, enforcer=policy.make_enforcer(conf))
    return PlacementApp(_stack(deps, engine, watcher_only), engine)


def init_application(*, watcher_only: bool = False) -> PlacementApp:
    """The module-level ``application`` for WSGI servers: configuration, then
    logging as configured (as upstream's), then the application
    (``watcher_only``: see :func:`create_app`)."""
    conf = placement_conf.load([], default_config_files=placement_conf.wsgi_config_files())
    logs.setup(conf)
    return create_app(conf, watcher_only=watcher_only)
