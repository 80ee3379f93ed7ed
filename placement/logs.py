"""Logging as upstream's: oslo.log, configured from ``placement.conf``.

:func:`placement.conf.register_opts` registers oslo.log's options (``[DEFAULT]
debug``, ``log_file``, ``log_dir``, ``use_syslog``, ``use_stderr``,
``log_config_append``, ``default_log_levels``, the format strings, …), so the
service reads them from the same files as upstream and takes the same
command-line switches (``--debug``, ``--log-file``). :func:`setup` applies
them; the entry points that run a service call it (the WSGI application's
module, ``placement-api``, ``placement-applier``, ``placement-audit-runner``),
while ``create_app`` and ``PlacementDirect`` leave a host program's logging
alone, as upstream's do.

Each line names its request through oslo.context: the request log middleware
makes a context for every request before anything else logs, and the auth
layer's context (with user and project) replaces it, so oslo.log's
``[global_request_id request_id user project …]`` prefix is upstream's.
"""

from __future__ import annotations

import logging

from oslo_config import cfg
from oslo_log import log as oslo_log

LOG = logging.getLogger(__name__)


def setup(conf: cfg.ConfigOpts) -> None:
    """Configure the root logger from ``conf`` with oslo.log, as upstream's
    services do; Python warnings are logged too. With ``[DEFAULT]
    log_options`` every option value is then logged at DEBUG."""
    oslo_log.setup(conf, "placement")
    logging.captureWarnings(True)
    if conf.log_options:
        conf.log_opt_values(LOG, logging.DEBUG)
