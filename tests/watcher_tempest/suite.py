"""Watcher's own API tests (watcher-tempest-plugin) against our server, deployed as operators do.

:func:`run` starts, on loopback ports under one directory:

* Keystone, as the Nova cloud starts it (:func:`tests.nova.cloud.start_keystone`,
  from the same templates), with a catalog naming ``identity``, ``placement``
  and ``infra-optim``;
* our Placement under gunicorn (``auth_strategy = keystone``, a migrated SQLite
  file), and the Watcher API alone on a port of its own
  (``placement.wsgi.watcher:application``, what packagers run on 9322): the
  ``infra-optim`` endpoint;
* ``placement-applier`` and ``placement-audit-runner`` on the same database,
  so plans start and CONTINUOUS audits run as in a deployment;

then runs every test of ``watcher_tempest_plugin.tests.api``, and the scenario
``test_execute_dummy_optim`` (it boots no server), with tempest
(:mod:`tests.watcher_tempest.pluginenv`) and returns each test's outcome.
Logs stay in ``<workdir>/logs``; tempest's own in ``<workdir>/tempest``.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests import identity, rig, server
from tests.nova import cloud
from tests.watcher_tempest import pluginenv, runner

#: The tests run: all of the plugin's API tests, and the one scenario test that
#: boots no server (the dummy strategy's plan, executed by our applier).
PLUGIN_TESTS = r"^watcher_tempest_plugin\.tests\.(api\.|scenario\.test_execute_dummy_optim\.)"
#: Our console scripts, beside the interpreter running the tests.
BIN = Path(sys.executable).parent
#: Seconds the whole tempest run may take.
RUN_TIMEOUT_S = 1500


@dataclass(frozen=True)
class Endpoints:
    keystone: str
    placement: str
    watcher: str


def _tempest_conf(keystone_url: str) -> str:
    return runner.identity_sections(keystone_url) + textwrap.dedent("""\
        [optimize]
        # Every microversion we serve, as devstack configures it for upstream.
        min_microversion = 1.0
        max_microversion = latest
        [network]
        # The scenario base refuses to start without one; the dummy scenario boots no
        # server, so no network is ever looked up.
        public_network_id = 6e5c3b2a-1111-4a4a-9999-000000000001
        [service_available]
        watcher = true
        nova = false
        cinder = false
        glance = false
        neutron = false
        swift = false
        """)


def _daemon(procs: cloud.Processes, name: str, database: str, workdir: Path) -> None:
    """``placement-applier`` or ``placement-audit-runner`` on ``database``, polling fast."""
    conf = workdir / f"{name}.conf"
    conf.write_text(f"[placement_database]\nconnection = {database}\n")
    argv = [str(BIN / name), "--config-file", str(conf), "--poll-interval", "0.2"]
    procs.start(name, argv, cloud.clean_env(), workdir)


@contextlib.contextmanager
def _deployment(workdir: Path) -> Iterator[Endpoints]:
    """Keystone, our two endpoints and the two daemons, stopped when the block ends."""
    procs = cloud.Processes(workdir / "logs")
    keystone_port = server.free_port()
    keystone_url = f"http://127.0.0.1:{keystone_port}"
    database = f"sqlite:///{workdir}/placement.db"
    rig.migrated(database)
    conf_extra = identity.authtoken_section(keystone_url, keystone_url)
    with contextlib.ExitStack() as stack:
        stack.callback(procs.stop_all)
        cloud.start_keystone(workdir, procs, keystone_port, cloud.made_templates())
        placement = stack.enter_context(
            server.gunicorn(database, workers=2, auth_strategy="keystone", conf_extra=conf_extra)
        )
        watcher = stack.enter_context(
            server.gunicorn(
                database,
                workers=2,
                auth_strategy="keystone",
                conf_extra=conf_extra,
                application=server.WATCHER_APPLICATION,
            )
        )
        session = cloud.admin_session(keystone_url)
        cloud.register(
            session,
            keystone_url,
            {"identity": f"{keystone_url}/v3", "placement": placement, "infra-optim": watcher},
        )
        for name in ("placement-applier", "placement-audit-runner"):
            _daemon(procs, name, database, workdir)
        yield Endpoints(keystone_url, placement, watcher)
        procs.check()  # a daemon that died during the run fails it, with its log


def run(workdir: Path) -> dict[str, runner.Outcome]:
    """Run the plugin's API tests against a fresh deployment in ``workdir``."""
    (workdir / "logs").mkdir(parents=True, exist_ok=True)
    pluginenv.plugin_venv()  # installed before the deployment starts, not while it waits
    with _deployment(workdir) as endpoints:
        # One at a time also because our ONESHOT audit is decided in its POST, so one
        # posted while another test's plan runs answers CANCELLED (the force guard)
        # where upstream answers PENDING and cancels it a moment later, and
        # test_create_audit_oneshot reads that answer.
        return runner.run(
            workdir / "tempest",
            _tempest_conf(endpoints.keystone),
            PLUGIN_TESTS,
            workdir / "logs" / "tempest-run.log",
            RUN_TIMEOUT_S,
        )
