"""The WSGI application factory: engine, routes and middleware in one place."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import falcon
import sqlalchemy
from oslo_config import cfg

from placement import auth, logs, policy
from placement import conf as placement_conf
from placement.console import assets as console_assets
from placement.db import engine as db_engine
from placement.db import migration, standard
from placement.handlers import base
from placement.objects.actionplans import catalog
from placement.wsgi import health, instrument, limits, middleware, openapi, rerun, routes

LOG = logging.getLogger("placement")


def build_falcon_app(deps: base.Deps) -> falcon.App:
    """The router with our middleware and error rendering; no auth layers."""
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
    for template, resource_class, methods in routes.ROUTES:
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


def create_app(conf: cfg.ConfigOpts) -> PlacementApp:
    """Build the whole WSGI application from a loaded configuration.

    Fails closed, as upstream's: no ``[placement_database] connection`` or an
    unmigrated database is a :class:`placement.conf.ConfigError`, and
    ``[api] auth_strategy`` is keystone unless set otherwise.
    """
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
    deps = base.Deps(conf=conf, engine=engine, enforcer=policy.make_enforcer(conf))
    # Built inside out; a request meets /healthcheck, /openapi.json, metrics,
    # proxy headers, request log, the console's pages, CORS, auth, then context,
    # then Falcon, whose reads run again when the database dropped them
    # (ARCHITECTURE.md, "A request's way").
    falcon_app = build_falcon_app(deps)
    reads_rerun = rerun.RerunReads(falcon_app, db_engine.retry_policy_of(engine))
    app = middleware.with_cors(conf, _auth_layers(conf, reads_rerun))
    app = console_assets.ConsoleAssets(app, conf.api.auth_strategy)
    app = middleware.with_proxy_headers(conf, middleware.RequestLogMiddleware(app))
    app = instrument.instrument(conf, engine, falcon_app, app)
    return PlacementApp(health.HealthRoute(conf, openapi.DescriptionRoute(app)), engine)


def init_application() -> PlacementApp:
    """The module-level ``application`` for WSGI servers: configuration, then
    logging as configured (as upstream's), then the application."""
    conf = placement_conf.load([], default_config_files=placement_conf.wsgi_config_files())
    logs.setup(conf)
    return create_app(conf)
