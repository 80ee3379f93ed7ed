"""``placement-audit-runner``: run CONTINUOUS audits on their schedule, EVENT audits
when their webhook fires.

Usage: ``placement-audit-runner [--config-file F] [--config-dir D] [--once]
[--lease-seconds S] [--poll-interval S]``

Reads ``placement.conf`` like ``placement-manage``. Any number of runners may
share one database; each due audit is run by one of them at a time, and the
audit of a runner that died is taken over once its lease has run out. The
poll interval and the lease default to ``[watcher_decision_engine]
continuous_audit_interval`` and ``audit_lease``. SIGTERM or SIGINT stops it
after the running audit; ``--once`` runs what is due now and exits.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import sqlalchemy
from oslo_config import cfg

from placement import actionplan_opts, datasources, db, logs
from placement import conf as placement_conf
from placement.auditrunner.service import AuditRunner
from placement.cmd import daemon
from placement.effects import registry

PROG = "placement-audit-runner"

CLI_OPTS = [
    cfg.BoolOpt("once", default=False, help="Run the audits due now, then exit."),
    cfg.FloatOpt(
        "lease-seconds",
        min=0.1,
        help="How long a claim on a running audit holds without renewal "
        "(default: [watcher_decision_engine] audit_lease).",
    ),
    cfg.FloatOpt(
        "poll-interval",
        min=0.01,
        help="Seconds between looks for due audits "
        "(default: [watcher_decision_engine] continuous_audit_interval).",
    ),
    daemon.PARENT_PID_OPT,
]


def _start_up(argv: list[str]) -> tuple[cfg.ConfigOpts, sqlalchemy.Engine]:
    """The configuration and the migrated database, with logging set up."""
    conf = placement_conf.load(argv, cli_opts=CLI_OPTS, prog=PROG)
    logs.setup(conf)
    engine = db.create_engine(conf, url=placement_conf.database_url(conf))
    daemon.check_schema(engine)
    return conf, engine


def _runner(conf: cfg.ConfigOpts, engine: sqlalchemy.Engine) -> AuditRunner:
    """A runner planning as the API does: the executor's installed action types."""
    executor = registry.executor(conf)
    installed = registry.installed_declarations(executor)
    group = conf[actionplan_opts.DECISION_ENGINE_GROUP]
    return AuditRunner(
        engine=engine,
        options=actionplan_opts.planner_options(conf, installed, executor),
        lease_seconds=conf.lease_seconds or group.audit_lease,
        poll_interval=conf.poll_interval or group.continuous_audit_interval,
        measure=datasources.measurer(conf),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``placement-audit-runner``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        conf, engine = _start_up(argv)
        runner = _runner(conf, engine)
    except (placement_conf.ConfigError, sqlalchemy.exc.SQLAlchemyError, OSError, ValueError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    daemon.stop_on_signals(runner.stop)
    daemon.follow_parent(conf.parent_pid, runner.stop)
    try:
        runner.run(once=conf.once)
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
