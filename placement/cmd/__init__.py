"""Console commands: placement-api, placement-manage, placement-status, placement-applier,
placement-audit-runner."""

from __future__ import annotations

import sys

import sqlalchemy
from oslo_config import cfg

from placement import conf as placement_conf


def masked_database_url(conf: cfg.ConfigOpts) -> str:
    """The configured database URL with its password masked, for messages.

    Raises :class:`placement.conf.ConfigError` when none is configured.
    """
    url = placement_conf.database_url(conf)
    try:
        return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:  # reported when used; never echo it, it may hold a secret
        return "<unparsable [placement_database] connection>"


def announce_database(prog: str, conf: cfg.ConfigOpts) -> None:
    """Say on stderr which database an operator command acts on (stdout stays upstream's)."""
    print(f"{prog}: database {masked_database_url(conf)}", file=sys.stderr)
