"""``placement-api``: serve the API with gunicorn.

It finds its configuration as the WSGI application does:
``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` when that variable is set, else
oslo.config's search; ``--config-file`` / ``--config-dir`` replace either.
With no database configured this, and only this, entry point serves the
embedded default (:func:`placement.conf.use_embedded_default`): SQLite in the
user's data directory, ``noauth2``, listening on 127.0.0.1:8778, announced on
stderr. The WSGI application and the other commands refuse to start without
a database. Because noauth2 trusts any token, binding a non-loopback address
with it needs ``--allow-insecure-bind``. The embedded default also runs one
``placement-applier`` beside the server (a child process reading the same
configuration, started again when it dies, stopped with the server), so a
started action plan is applied with nothing else running; ``--applier`` /
``--no-applier`` override that. It runs one ``placement-audit-runner`` the
same way, so CONTINUOUS audits run (``--audit-runner`` / ``--no-audit-runner``).
Start-up says where the console is and which URL to register as Watcher's
(``infra-optim``) endpoint.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gunicorn.app.base import BaseApplication
from oslo_config import cfg

from placement import conf as placement_conf
from placement import logs, monitoring_opts
from placement import microversion as mv
from placement.cmd import supervisor

if TYPE_CHECKING:  # placement.wsgi itself is imported only once configured
    from placement.wsgi.instrument import GunicornHooks


class _Server(BaseApplication):
    def __init__(self, conf: cfg.ConfigOpts, options: dict) -> None:
        self.conf = conf
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Callable[..., Iterable[bytes]]:  # gunicorn's WSGI app type
        from placement.wsgi import create_app

        return create_app(self.conf)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog="placement-api", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8778, help="port to bind (8778)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers (1)")
    parser.add_argument(
        "--allow-insecure-bind",
        action="store_true",
        help="allow a non-loopback address while auth is noauth2",
    )
    parser.add_argument(
        "--applier",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run a placement-applier beside the server (default: only when embedded)",
    )
    parser.add_argument(
        "--audit-runner",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run a placement-audit-runner beside the server (default: only when embedded)",
    )
    return parser.parse_known_args(argv)


def _applier_config_args(
    rest: list[str], conf: cfg.ConfigOpts, config_files: list[str] | None
) -> list[str]:
    """The arguments that make an applier child read the files we read.

    ``placement-applier`` does not look at ``$OS_PLACEMENT_CONFIG_DIR`` (only
    the WSGI application and we do), so when that variable chose our files,
    and no ``--config-file`` replaced them, the child is told them by name.
    """
    if config_files is None or list(conf.config_file) != config_files:
        return rest
    return [*rest, *(arg for path in config_files for arg in ("--config-file", path))]


def _start_child(module: str, config_args: list[str], database_url: str) -> subprocess.Popen:
    """A ``placement-applier`` or ``placement-audit-runner`` child (``module``) that
    reads our configuration and exits when we do.

    It is handed the database we serve (the embedded default's is no option
    in any file) through oslo.config's environment source.
    """
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            module,
            *config_args,
            "--parent-pid",
            str(os.getpid()),
        ],
        env={**os.environ, "OS_PLACEMENT_DATABASE__CONNECTION": database_url},
    )


#: The children placement-api may run: (name, module).
APPLIER = ("placement-applier", "placement.cmd.applier")
AUDIT_RUNNER = ("placement-audit-runner", "placement.cmd.audit_runner")


def _supervised(
    child: tuple[str, str], rest: list[str], conf: cfg.ConfigOpts, config_files: list[str] | None
) -> supervisor.Supervisor:
    """A child reading our files and serving our database, started again
    whenever it dies (else an applier's started plans would stay ONGOING, and
    no recurring audit would run)."""
    name, module = child
    args = _applier_config_args(rest, conf, config_files)
    database = placement_conf.database_url(conf)
    return supervisor.Supervisor(name, lambda: _start_child(module, args, database))


def _base_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def console_url(host: str, port: int) -> str:
    """Where a browser opens the web console of a server bound to ``host:port``."""
    return f"{_base_url(host, port)}/console/"


def infra_optim_url(host: str, port: int) -> str:
    """The URL to register as Watcher's (``infra-optim``) endpoint of a server
    bound to ``host:port``: Watcher's endpoint under its prefix
    (``placement/wsgi/endpoint.py``)."""
    return f"{_base_url(host, port)}{mv.WATCHER_ENDPOINT_PREFIX}"


def _announce_embedded(path: str, strategy: str, args: argparse.Namespace) -> None:
    """Say loudly, on stderr, that this server runs on the development default."""
    rule = "*" * 78
    trust = " (ANY token is accepted; 'admin' is an ADMINISTRATOR)" if strategy == "noauth2" else ""
    lines = [
        rule,
        "placement-api: NO DATABASE IS CONFIGURED: serving the EMBEDDED DEFAULT,",
        "for development only:",
        f"  database       SQLite file {path} (created and migrated here)",
        f"  auth_strategy  {strategy}{trust}",
        f"  console        {console_url(args.host, args.port)} (open it in a browser)",
        f"  infra-optim    {infra_optim_url(args.host, args.port)} (Watcher's endpoint)",
        "For a deployment, set [placement_database] connection in placement.conf",
        "(see README.rst, 'Configuration').",
        rule,
    ]
    print("\n".join(lines), file=sys.stderr, flush=True)


def _refuse_unsafe_binds(conf: cfg.ConfigOpts, args: argparse.Namespace) -> None:
    """Refuse, with a :class:`~placement.conf.ConfigError`, an address that
    would serve noauth2 beyond this host unasked, or metrics on the API's port."""
    if (
        conf.api.auth_strategy == "noauth2"
        and not _is_loopback(args.host)
        and not args.allow_insecure_bind
    ):
        raise placement_conf.ConfigError(
            f"Refusing to serve {args.host} with auth_strategy noauth2 (any token is "
            "trusted); pass --allow-insecure-bind or configure keystone auth"
        )
    if conf.metrics.enabled and monitoring_opts.bind_address(conf.metrics.bind)[1] == args.port:
        raise placement_conf.ConfigError(
            f"[metrics] bind {conf.metrics.bind} uses the API's port: give metrics their own"
        )


def _prepare_master(conf: cfg.ConfigOpts, args: argparse.Namespace) -> GunicornHooks:
    """Set up the gunicorn master before it forks; returns the workers' hooks.

    The metrics' storage is prepared before any application exists, and one
    application is created here so that a broken configuration fails at once
    and the database is migrated once, not by every worker.
    """
    from placement.wsgi import create_app, instrument

    logs.setup(conf)
    hooks = instrument.gunicorn_hooks(conf)  # before any app: metrics' storage
    create_app(conf)  # fail fast, migrate once in the master process
    logging.getLogger("placement").info(instrument.describe(conf))
    log = logging.getLogger("placement")
    log.info("Console: %s", console_url(args.host, args.port))
    log.info(
        "Watcher's endpoint (register it as infra-optim): %s", infra_optim_url(args.host, args.port)
    )
    return hooks


def main(argv: list[str] | None = None) -> int:
    args, rest = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        config_files = placement_conf.wsgi_config_files()
        conf = placement_conf.load(rest, default_config_files=config_files, prog="placement-api")
        embedded = placement_conf.use_embedded_default(conf)
        if embedded is not None:
            _announce_embedded(embedded, conf.api.auth_strategy, args)
        _refuse_unsafe_binds(conf, args)
        hooks = _prepare_master(conf, args)
    except placement_conf.ConfigError as exc:
        print(f"placement-api: {exc}", file=sys.stderr)
        return 2
    wanted = {APPLIER: args.applier, AUDIT_RUNNER: args.audit_runner}
    children = [
        _supervised(child, rest, conf, config_files)
        for child, chosen in wanted.items()
        if (embedded is not None if chosen is None else chosen)
    ]
    master = os.getpid()
    try:
        _serve(conf, args, hooks.settings())
    finally:
        if os.getpid() == master:  # not in a forked worker
            for child in children:
                child.stop()
    return 0


def _serve(conf: cfg.ConfigOpts, args: argparse.Namespace, hooks: dict) -> None:
    _Server(
        conf,
        {
            "bind": f"{args.host}:{args.port}",
            "workers": args.workers,
            "accesslog": None,
            "graceful_timeout": 5,
            "control_socket_disable": True,
            **hooks,
        },
    ).run()


if __name__ == "__main__":
    sys.exit(main())
