"""``placement-applier``: execute started action plans.

Usage: ``placement-applier [--config-file F] [--config-dir D] [--once]
[--lease-seconds S] [--poll-interval S]``

Reads ``placement.conf`` like ``placement-manage``. Any number of appliers may
run against one database; each plan is executed by one of them. SIGTERM or
SIGINT stops it cleanly: running actions finish, a running ``sleep`` is cut
short and its plan is released to the next applier. ``--once`` executes what
is waiting and exits (for tests and operators). SIGUSR1 prints every thread's
stack to stderr.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

import sqlalchemy
from oslo_config import cfg

from placement import actionplan_opts, db, logs, metrics, monitoring_opts
from placement import conf as placement_conf
from placement.applier.service import Applier
from placement.cmd import daemon
from placement.effects.nova import client as nova_client
from placement.effects.registry import executor, load_effects

PROG = "placement-applier"
LOG = logging.getLogger("placement.applier")

CLI_OPTS = [
    cfg.BoolOpt("once", default=False, help="Execute the plans waiting now, then exit."),
    cfg.FloatOpt(
        "lease-seconds",
        default=30.0,
        min=0.1,
        help="How long a claim on a plan holds without renewal; another applier takes "
        "over a plan whose lease ran out.",
    ),
    cfg.FloatOpt(
        "poll-interval",
        default=1.0,
        min=0.01,
        help="Seconds between looks for new plans and for a cancel of the running one.",
    ),
    daemon.PARENT_PID_OPT,
]


def _start_up(argv: list[str]) -> tuple[cfg.ConfigOpts, sqlalchemy.Engine]:
    """The configuration and the database, with logging and metrics set up.

    Everything that can refuse to start happens here, before any plan is
    claimed, so that :func:`main` reports it as a start-up error.
    """
    conf = placement_conf.load(argv, cli_opts=CLI_OPTS, prog=PROG)
    logs.setup(conf)
    engine = db.create_engine(conf, url=placement_conf.database_url(conf))
    daemon.check_schema(engine)
    if executor(conf) == actionplan_opts.NOVA:
        _check_nova(conf)
    if conf.metrics.enabled:  # its own exposition: see placement.metrics
        metrics.serve_alone(*monitoring_opts.bind_address(conf.metrics.applier_bind))
        metrics.watch_pool(engine, db.readers_of(engine))
    return conf, engine


def _check_nova(conf: cfg.ConfigOpts) -> None:
    """Refuse to start on a Nova the ``nova`` executor cannot work with (its compute
    API older than the executor's floor, or no way to authenticate). A Nova that
    cannot be reached now is no reason not to start: its actions wait for it."""
    try:
        refusal = nova_client.check_floor(nova_client.shared(conf))
    except nova_client.Unreachable as exc:
        LOG.warning("Nova's compute API version cannot be checked now: %s", exc)
        return
    except nova_client.NovaError as exc:
        refusal = str(exc)
    if refusal is not None:
        raise placement_conf.ConfigError(f"[watcher_applier] executor = nova: {refusal}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``placement-applier``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        conf, engine = _start_up(argv)
    except (placement_conf.ConfigError, sqlalchemy.exc.SQLAlchemyError, OSError, ValueError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    applier = Applier(
        conf=conf,
        engine=engine,
        types=load_effects(executor(conf)),
        lease_seconds=conf.lease_seconds,
        poll_interval=conf.poll_interval,
    )
    daemon.stop_on_signals(applier.stop)
    daemon.follow_parent(conf.parent_pid, applier.stop)
    try:
        applier.run(once=conf.once)
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
