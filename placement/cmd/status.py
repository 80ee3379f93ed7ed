"""``placement-status upgrade check [--json]``: is this deployment ready to upgrade?

The checks, their names, messages and the exit status (0 success, 1 warning,
2 failure, 255 unexpected error) are upstream's, run by oslo.upgradecheck:

* Missing Root Provider IDs: failure while a provider lacks
  ``root_provider_id`` (the next schema migration refuses such rows);
* Incomplete Consumers: warning with the number of allocation consumers that
  have no ``consumers`` row;
* Policy File JSON to YAML Migration: failure if the policy file is JSON.

It names the database it checks on stderr (password masked), and refuses to
run without ``[placement_database] connection`` (exit status 255).

The first two are repaired by ``placement-manage db online_data_migrations``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import sqlalchemy
from oslo_config import cfg
from oslo_upgradecheck import common_checks, upgradecheck

from placement import cmd, db
from placement import conf as placement_conf
from placement.objects import online_migrations

PROG = "placement-status"
_RUN_MIGRATIONS = 'Run the "placement-manage db online_data_migrations" command.'


class Checks(upgradecheck.UpgradeCommands):
    """Upstream's upgrade checks, against the configured database."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def _count(self, counter: Callable[[sqlalchemy.Engine], int]) -> int:
        engine = db.create_engine(self.conf, url=placement_conf.database_url(self.conf))
        try:
            return counter(engine)
        finally:
            engine.dispose()

    def _check_root_provider_ids(self) -> upgradecheck.Result:
        if self._count(online_migrations.count_missing_root_ids):
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                details="There is at least one resource provider table record which "
                f"misses its root provider id. {_RUN_MIGRATIONS}",
            )
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_incomplete_consumers(self) -> upgradecheck.Result:
        missing = self._count(online_migrations.count_incomplete_consumers)
        if missing:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                details=f"There are {missing} incomplete consumers table records for "
                f"existing allocations. {_RUN_MIGRATIONS}",
            )
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_policy_json(self) -> upgradecheck.Result:
        return common_checks.check_policy_json(self, self.conf)

    _upgrade_checks = (
        ("Missing Root Provider IDs", _check_root_provider_ids),
        ("Incomplete Consumers", _check_incomplete_consumers),
        ("Policy File JSON to YAML Migration", _check_policy_json),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``placement-status``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    upgradecheck.register_cli_options(conf, Checks(conf))
    try:
        conf(args=argv, project=placement_conf.PROJECT)
        cmd.announce_database(PROG, conf)
    except (cfg.Error, placement_conf.ConfigError) as exc:
        print(f"{PROG}: configuration error: {exc}", file=sys.stderr)
        return 255
    upgradecheck.CONF = conf  # where check() reads --json, as upgradecheck.main() leaves it
    return upgradecheck.run(conf)


if __name__ == "__main__":
    sys.exit(main())
