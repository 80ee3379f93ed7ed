"""The WSGI application factory: engine, routes and middleware in one place."""

from __future__ import annotations

import logging

import falcon
import sqlalchemy
from oslo_config import cfg

from placement import auth, logs, policy
from placement import conf as placement_conf
from placement.db import engine as db_engine
from placement.db import migration, standard
from placement.handlers import base
from placement.objects.actionplans import catalog
from placement.wsgi import middleware, routes

LOG = logging.getLogger("placement")


def build_falcon_app(deps: base.Deps) -> falcon.App:
    """The router with our middleware and error rendering; no auth layers."""
    app = falcon.App(
        middleware=(middleware.InfraOptimTrailingSlash(), middleware.MicroversionMiddleware())
    )
    app.req_options.keep_blank_qs_values = True
    # Bodiless answers (201 of POST /resource_providers <1.20) have no Content-Type.
    app.resp_options.default_media_type = None
    app.req_options.auto_parse_qs_csv = False
    app.req_options.strip_url_path_trailing_slash = False
    allow = {}
    for template, resource_class, methods in routes.ROUTES:
        app.add_route(template, resource_class(deps))
        allow[template] = methods
    middleware.ErrorRenderer(allow).install(app)
    return app


def _auth_layers(conf: cfg.ConfigOpts, strategy: str, app):
    app = auth.ContextMiddleware(app)
    if strategy == "noauth2":
        return auth.NoAuthMiddleware(app)
    from placement import keystone  # optional dependency, imported on demand

    return keystone.wrap(conf, app)


def _sync_actionplan_catalog(engine: sqlalchemy.Engine) -> None:
    """Write the built-in goals and strategies, if ``db sync`` created their tables.

    A database last synced by upstream Placement (or by a release of ours
    without action plans) lacks them; the Placement API still serves it, and
    ``/v1`` needs ``placement-manage db sync`` first.
    """
    if migration.actionplan_revision(engine) is None:
        LOG.warning("No action-plan tables: run 'placement-manage db sync' to serve /v1")
        return
    catalog.sync_catalog(engine)


def create_app(conf: cfg.ConfigOpts):
    """Build the whole WSGI application from a loaded configuration."""
    logs.setup(conf)
    embedded = placement_conf.is_embedded(conf)
    strategy = placement_conf.auth_strategy(conf)
    url = placement_conf.database_url(conf)
    if embedded:
        LOG.info(
            "Embedded mode: SQLite database %s, auth_strategy %s",
            url.removeprefix("sqlite:///"),
            strategy,
        )
    engine = db_engine.create_engine(conf, url=url)
    if embedded or conf.placement_database.sync_on_startup:
        migration.upgrade_all(engine)
    standard.sync_standard_names(engine)
    _sync_actionplan_catalog(engine)
    deps = base.Deps(conf=conf, engine=engine, enforcer=policy.make_enforcer(conf))
    app = build_falcon_app(deps)
    # Built inside out; a request meets proxy headers, request log, CORS, auth,
    # then context (API.md section 1).
    app = middleware.with_cors(conf, _auth_layers(conf, strategy, app))
    app = middleware.with_proxy_headers(conf, middleware.RequestLogMiddleware(app))
    app.placement_engine = engine  # lets tests and tools dispose of it
    return app


def init_application():
    """The module-level ``application`` for WSGI servers."""
    conf = placement_conf.load([], default_config_files=placement_conf.wsgi_config_files())
    return create_app(conf)
