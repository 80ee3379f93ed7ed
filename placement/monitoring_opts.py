"""``[metrics]`` and ``[healthcheck]``: what operators watch the service with.

``[metrics]`` turns the Prometheus exposition on and says where it listens:
always an address of its own, never the API's port, so a scrape never passes
through the API's authentication and the metrics never leak to API clients.
``[healthcheck]`` is oslo.middleware's group; we add the database timeout of
our ``placement_database`` backend and make that backend the default.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_middleware.healthcheck import opts as healthcheck_opts

METRICS_GROUP = "metrics"
HEALTHCHECK_GROUP = "healthcheck"

#: The healthcheck backend (entry point) that asks the database for ``SELECT 1``.
DATABASE_BACKEND = "placement_database"

#: ``host:port``, the host a name, an IPv4 address or a bracketed IPv6 address.
_BIND = r"^(\[[0-9A-Fa-f:.]+\]|[^:\[\]\s]+):[0-9]{1,5}$"

_metrics_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "enabled",
        default=False,
        help="Serve Prometheus metrics. The API's gunicorn must then run with "
        "'-c python:placement.wsgi.gunicorn_conf' (placement-api does it itself) "
        "so that every worker's counts are summed.",
    ),
    cfg.StrOpt(
        "bind",
        default="127.0.0.1:9464",
        regex=_BIND,
        help="host:port of the API's metrics exposition (never the API's own port).",
    ),
    cfg.StrOpt(
        "applier_bind",
        default="127.0.0.1:9465",
        regex=_BIND,
        help="host:port of placement-applier's own metrics exposition; each "
        "applier on one host needs its own.",
    ),
]

_healthcheck_opts: list[cfg.Opt] = [
    cfg.FloatOpt(
        "database_timeout",
        default=2.0,
        min=0.1,
        help="Seconds the placement_database healthcheck backend waits for the "
        "database to answer SELECT 1 before /healthcheck answers 503. Our default "
        "'backends' is placement_database alone; keep it in the list when adding "
        "oslo.middleware's disable_by_file.",
    ),
]

GROUPS: dict[str, list[cfg.Opt]] = {
    METRICS_GROUP: _metrics_opts,
    HEALTHCHECK_GROUP: _healthcheck_opts,
}


def register_library_opts(conf: cfg.ConfigOpts) -> None:
    """oslo.middleware's ``[healthcheck]`` options, checking the database by default.

    ``disable_by_file``'s options are registered here too (its backend would
    register them only when it loads) so a configuration file's value is read
    and checked at start-up like any other.
    """
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, HEALTHCHECK_GROUP)
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS, HEALTHCHECK_GROUP)
    conf.set_default("backends", [DATABASE_BACKEND], group=HEALTHCHECK_GROUP)


def bind_address(bind: str) -> tuple[str, int]:
    """``(host, port)`` of a ``host:port`` option value (brackets of IPv6 dropped)."""
    host, _, port = bind.rpartition(":")
    return host.strip("[]"), int(port)
