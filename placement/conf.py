"""Configuration: upstream's ``placement.conf`` options, read with oslo.config.

Files are found as upstream finds them: ``$OS_PLACEMENT_CONFIG_DIR/placement.conf``
for the WSGI application and ``placement-api`` when that variable is set, else
oslo.config's search for project ``placement`` (``~/.placement/``, ``~/``,
``/etc/placement/``, ``/etc/``). Any option can also be set as ``OS_<GROUP>__<OPTION>``.

As upstream's, the service and the operator commands fail closed:
``[placement_database] connection`` is required (:func:`database_url` refuses
to go on without it) and ``[api] auth_strategy`` defaults to ``keystone``.
Only ``placement-api`` (and so ``python3 dev.py serve``) falls back to the
*embedded default* (:func:`use_embedded_default`): a SQLite file in the
user's data directory, migrated at start-up, with ``noauth2`` unless
``[api] auth_strategy`` is set.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from oslo_config import cfg
from oslo_log import log as oslo_log
from oslo_middleware import cors, http_proxy_to_wsgi
from oslo_policy import opts as policy_opts

from placement import actionplan_opts, flavor_opts, monitoring_opts

PROJECT = "placement"

_default_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "log_options",
        default=True,
        help="Log every option value at DEBUG level when the API starts.",
    ),
    cfg.StrOpt("tempdir", help="Directory for temporary files."),
    cfg.StrOpt(
        "pybasedir",
        default=os.path.dirname(os.path.abspath(__file__)),
        sample_default="<Path>",
        help="Base directory of the installed package.",
    ),
    cfg.StrOpt("state_path", default="$pybasedir", help="Top-level state directory."),
]

_api_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "auth_strategy",
        default="keystone",
        choices=("keystone", "noauth2"),
        deprecated_group="DEFAULT",
        help="How requests are authenticated: 'keystone' validates tokens "
        "with keystonemiddleware; 'noauth2' trusts the token text (testing only).",
    ),
    cfg.IntOpt(
        "max_limit",
        default=1000,
        min=1,
        help="Most items one page of a /v1 (Watcher API) collection holds; "
        "a larger 'limit' is cut to it.",
    ),
    cfg.IntOpt(
        "max_request_body_size",
        default=1048576,
        min=1,
        help="Largest request body accepted, in bytes. A request declaring a "
        "larger Content-Length is answered 413 before its body is read; a "
        "chunked body is read up to this size, then answered 413. The largest "
        "bodies clients send are reshaper and allocation writes of many providers.",
    ),
]

_placement_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "randomize_allocation_candidates",
        default=False,
        help="Return a random sample of candidates when 'limit' cuts the list.",
    ),
    cfg.StrOpt(
        "incomplete_consumer_project_id",
        default="00000000-0000-0000-0000-000000000000",
        help="Project recorded for allocations written before microversion 1.8.",
    ),
    cfg.StrOpt(
        "incomplete_consumer_user_id",
        default="00000000-0000-0000-0000-000000000000",
        help="User recorded for allocations written before microversion 1.8.",
    ),
    cfg.IntOpt(
        "allocation_conflict_retry_count",
        default=10,
        min=1,
        help="How often an allocation write is retried server-side when "
        "another writer changed a provider's generation meanwhile.",
    ),
    cfg.IntOpt(
        "max_allocation_candidates",
        default=-1,
        min=-1,
        help="Stop generating allocation candidates after this many (-1 = no limit).",
    ),
    cfg.StrOpt(
        "allocation_candidates_generation_strategy",
        default="depth-first",
        choices=("depth-first", "breadth-first"),
        help="Order in which root providers are visited while generating "
        "candidates: one root exhausted first, or round-robin.",
    ),
]

_database_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "connection",
        secret=True,
        help="SQLAlchemy URL of the database. Required: the service and the "
        "commands refuse to start without it (placement-api alone then serves "
        "its embedded SQLite default, for development).",
    ),
    cfg.StrOpt(
        "connection_parameters",
        default="",
        help="Extra query parameters appended to the connection URL.",
    ),
    cfg.BoolOpt("sqlite_synchronous", default=True, help="Use SQLite's synchronous mode."),
    cfg.StrOpt("slave_connection", secret=True, help="Read-replica URL (unused)."),
    cfg.StrOpt("mysql_sql_mode", default="TRADITIONAL", help="MySQL session sql_mode."),
    cfg.IntOpt(
        "connection_recycle_time",
        default=3600,
        help="Recycle pooled connections after this many seconds.",
    ),
    cfg.IntOpt(
        "max_pool_size",
        help="Connection pool size (driver default if unset). On MariaDB/MySQL and "
        "PostgreSQL reads have a pool of their own of the same size.",
    ),
    cfg.IntOpt("max_retries", default=10, help="Connection attempts at start-up (-1 = forever)."),
    cfg.IntOpt("retry_interval", default=10, help="Seconds between connection attempts."),
    cfg.IntOpt("max_overflow", help="Connections allowed beyond the pool size."),
    cfg.IntOpt(
        "connection_debug",
        default=0,
        min=0,
        max=100,
        help="SQL logging: 0 none, 50 statements, 100 everything.",
    ),
    cfg.BoolOpt("connection_trace", default=False, help="Unused; kept for compatibility."),
    cfg.IntOpt("pool_timeout", help="Seconds to wait for a pooled connection."),
    cfg.BoolOpt(
        "sync_on_startup",
        default=False,
        help="Migrate the database to the latest schema when the API starts.",
    ),
    cfg.IntOpt(
        "mysql_wsrep_sync_wait",
        min=0,
        help="For Galera only: the session's wsrep_sync_wait on every new connection, "
        "the writers' and the readers' (unset: the server's own). 1 makes every read "
        "wait until the node it runs on has applied every write committed anywhere in "
        "the cluster before it started, so a read through one node sees a claim just "
        "made through another; set it when API servers use different nodes (a "
        "round-robin proxy, or servers pinned to different nodes). Costs one "
        "cluster round trip per read.",
    ),
    cfg.FloatOpt(
        "db_max_retry_time",
        default=20.0,  # placement.db.retry.DEFAULT_MAX_TIME
        min=0,
        help="Seconds a transaction the database aborted (a deadlock, a Galera "
        "certification conflict, a lock wait timeout, a connection cut by a proxy "
        "failing over) keeps being run again, and a read request re-run, before "
        "giving up: a write then answers 409 placement.concurrent_update, a read "
        "503 with Retry-After.",
    ),
    cfg.FloatOpt(
        "db_retry_interval",
        default=0.02,  # placement.db.retry.DEFAULT_INTERVAL
        min=0,
        help="Seconds: the ceiling of the first pause before a retry. Each pause is "
        "drawn at random below a ceiling that doubles after each retry (jittered "
        "exponential back-off).",
    ),
    cfg.FloatOpt(
        "db_max_retry_interval",
        default=1.0,  # placement.db.retry.DEFAULT_MAX_INTERVAL
        min=0,
        help="Seconds: the ceiling the pauses between retries never exceed.",
    ),
]

_workarounds_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "optimize_for_wide_provider_trees",
        default=False,
        help="Accepted for compatibility; our candidate engine always "
        "prunes combinations that cannot fit.",
    ),
]

GROUPS: dict[str, list[cfg.Opt]] = {
    "DEFAULT": _default_opts + actionplan_opts.DEFAULT_OPTS,
    "api": _api_opts,
    "placement": _placement_opts,
    "placement_database": _database_opts,
    "workarounds": _workarounds_opts,
    **actionplan_opts.GROUPS,
    **monitoring_opts.GROUPS,
}


class ConfigError(Exception):
    """The configuration cannot be used; the message names the culprit."""


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Options by group, for ``oslo-config-generator``."""
    return [(group, list(opts)) for group, opts in GROUPS.items()]


#: ``[cors]`` defaults of a Placement service (upstream sets them at WSGI start-up).
CORS_DEFAULTS = {
    "allow_headers": [
        "X-Auth-Token",
        "X-Openstack-Request-Id",
        "X-Identity-Status",
        "X-Roles",
        "X-Service-Catalog",
        "X-User-Id",
        "X-Tenant-Id",
        "OpenStack-API-Version",
    ],
    "expose_headers": [
        "X-Auth-Token",
        "X-Openstack-Request-Id",
        "X-Subject-Token",
        "X-Service-Token",
        "OpenStack-API-Version",
    ],
    "allow_methods": ["GET", "PUT", "POST", "DELETE", "PATCH"],
}


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Our option groups, plus the libraries' options we read: oslo.log's
    (``[DEFAULT] debug``, ``log_file``, …, and their command-line switches),
    ``[cors]``, ``[oslo_middleware]``, ``[oslo_policy]``, ``[healthcheck]``."""
    oslo_log.register_options(conf)
    for group, opts in GROUPS.items():
        conf.register_opts(opts, group=None if group == "DEFAULT" else group)
    conf.register_opts(cors.CORS_OPTS, "cors")
    for name, value in CORS_DEFAULTS.items():
        conf.set_default(name, value, group="cors")
    conf.register_opts(http_proxy_to_wsgi.OPTS, "oslo_middleware")
    monitoring_opts.register_library_opts(conf)
    policy_opts.set_defaults(conf, policy_file="policy.yaml")


def wsgi_config_files() -> list[str] | None:
    """Config files for the WSGI app and ``placement-api``: ``$OS_PLACEMENT_CONFIG_DIR``
    first (None: oslo.config's search)."""
    config_dir = os.environ.get("OS_PLACEMENT_CONFIG_DIR", "").strip()
    if config_dir:
        path = os.path.join(config_dir, "placement.conf")
        if not os.path.exists(path):
            raise ConfigError(
                f"Configuration file not found: {path} (from OS_PLACEMENT_CONFIG_DIR)"
            )
        return [path]
    return None


def load(
    argv: Sequence[str] | None = None,
    *,
    default_config_files: Iterable[str] | None = None,
    cli_opts: Iterable[cfg.Opt] = (),
    prog: str | None = None,
) -> cfg.ConfigOpts:
    """Parse command line and files into a new, validated ``ConfigOpts``."""
    conf = cfg.ConfigOpts()
    register_opts(conf)
    for opt in cli_opts:
        conf.register_cli_opt(opt)
    try:
        conf(
            list(argv or []),
            project=PROJECT,
            prog=prog,
            default_config_files=(
                list(default_config_files) if default_config_files is not None else None
            ),
        )
    except cfg.Error as exc:
        raise ConfigError(str(exc)) from None
    validate(conf)
    return conf


def validate(conf: cfg.ConfigOpts) -> None:
    """Read every option once so a bad value fails now, naming the option."""
    for group, opts in GROUPS.items():
        section = conf if group == "DEFAULT" else conf[group]
        for opt in opts:
            try:
                getattr(section, opt.dest)
            except (cfg.Error, ValueError) as exc:
                raise ConfigError(f"Invalid value for option [{group}] {opt.name}: {exc}") from None
    try:
        flavor_opts.validate(conf)
    except flavor_opts.InvalidFlavor as exc:
        raise ConfigError(str(exc)) from None


def embedded_database_path() -> str:
    """Where the embedded SQLite database lives for this user."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(base, "placement", "placement.sqlite")


def _explicitly_set(conf: cfg.ConfigOpts, name: str, group: str) -> bool:
    found = conf.get_location(name, group)
    return found is not None and found.location != cfg.Locations.opt_default


def use_embedded_default(conf: cfg.ConfigOpts) -> str | None:
    """With no database configured, point ``conf`` at the embedded default.

    That is a SQLite file in the user's data directory, migrated at start-up,
    and ``noauth2`` unless ``[api] auth_strategy`` was set. Returns the file's
    path, or None when a database is configured (then nothing changes).
    Only ``placement-api`` calls this: everything else fails closed.
    """
    if conf.placement_database.connection:
        return None
    path = embedded_database_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    conf.set_override("connection", f"sqlite:///{path}", group="placement_database")
    conf.set_override("sync_on_startup", True, group="placement_database")
    if not _explicitly_set(conf, "auth_strategy", "api"):
        conf.set_override("auth_strategy", "noauth2", group="api")
    return path


def database_url(conf: cfg.ConfigOpts) -> str:
    """``[placement_database] connection``; a :class:`ConfigError` when unset,
    with upstream's wording (oslo.config's ``RequiredOptError``)."""
    if not conf.placement_database.connection:
        raise ConfigError("value required for option connection in group [placement_database]")
    return conf.placement_database.connection
