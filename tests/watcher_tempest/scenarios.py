"""watcher-tempest-plugin's scenario tests, unchanged, on the Nova cloud and our server.

The scenarios boot servers through Nova, write load into Prometheus the way the
plugin does (``promtool push metrics``: :mod:`tests.promtool_push` stands in for
Debian's promtool, which has no ``push``), ask our Watcher API for audits, and
execute the plans through Nova. :func:`run` readies the cloud of
:mod:`tests.nova.cloud` for them (cleared; two flavors; an applier with the
``nova`` executor and an audit runner on our database) and runs them with
tempest (:mod:`tests.watcher_tempest.runner`).

What the cloud has and has not decides what runs, as in the plugin's own gate:

* three computes with live migration (Nova's fake driver, sized 16 vCPUs and
  64 GiB each: :mod:`tests.nova.compute_shim`), compute API up to 2.95;
* a network Nova can make ports on (``private``, :mod:`tests.nova.neutron`),
  which tempest finds by name: no network is made per project;
* no Cinder: the boot-from-volume classes, the volume cases of
  ``skipped_actions`` and ``zone_migration`` and ``storage_balance`` skip
  themselves (``[service_available] cinder = false``);
* no real guests: ``strategies_real`` (load burnt inside servers and read
  back by real telemetry, reached over floating IPs) skips itself
  (``[network-feature-enabled] floating_ips = false``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.nova import cloud, neutron, stubs
from tests.watcher_tempest import runner

#: The scenario modules run (the plugin's whole ``tests.scenario`` package).
SCENARIO_TESTS = r"^watcher_tempest_plugin\.tests\.scenario\."
#: Where the plugin's ``promtool push metrics`` goes: our stand-in, run by its shebang.
PROMTOOL = Path(__file__).resolve().parents[1] / "promtool_push.py"
#: Seconds the whole scenario run may take.
RUN_TIMEOUT_S = 2400
#: The flavors tempest boots with (``flavor_ref`` and ``flavor_ref_alt``): name,
#: vCPUs, RAM (MB), disk (GB), as devstack's m1.nano and m1.micro.
FLAVORS = (("m1.nano", 1, 128, 1), ("m1.micro", 1, 192, 1))


def _tempest_conf(nova_cloud: cloud.Cloud, flavors: list[str]) -> str:
    return runner.identity_sections(nova_cloud.keystone_url) + textwrap.dedent(f"""\
        [auth]
        # tempest finds the cloud's network by name, as on a cloud whose projects
        # share one; it makes none per project.
        create_isolated_networks = false
        [service_available]
        watcher = true
        nova = true
        neutron = true
        cinder = false
        glance = false
        swift = false
        [compute]
        image_ref = {stubs.IMAGE_ID}
        image_ref_alt = {stubs.IMAGE_ID}
        flavor_ref = {flavors[0]}
        flavor_ref_alt = {flavors[1]}
        fixed_network_name = {neutron.NETWORK_NAME}
        min_compute_nodes = 2
        min_microversion = 2.1
        max_microversion = {cloud.COMPUTE_MICROVERSION}
        [compute-feature-enabled]
        live_migration = true
        cold_migration = true
        resize = true
        [network]
        public_network_id = {neutron.NETWORK_ID}
        [network-feature-enabled]
        floating_ips = false
        [placement]
        # Every request of the plugin's Placement client carries this version; at
        # Placement's default (1.0) a provider's traits are a 404, here and upstream.
        min_microversion = {cloud.PLACEMENT_MICROVERSION}
        max_microversion = latest
        [validation]
        run_validation = false
        [optimize]
        min_microversion = 1.0
        max_microversion = latest
        datasource = prometheus
        prometheus_host = 127.0.0.1
        prometheus_port = {nova_cloud.prometheus.port}
        prometheus_promtool = {PROMTOOL}
        # Every optional scenario that needs no Cinder and no real guest.
        run_continuous_audit_tests = true
        run_skipped_action_tests = true
        run_extended_attributes_tests = true
        run_zone_migration_extra_tests = true
        """)


def run(
    nova_cloud: cloud.Cloud, workdir: Path, regex: str = SCENARIO_TESTS
) -> dict[str, runner.Outcome]:
    """Run the plugin's scenario tests (those ``regex`` selects) on ``nova_cloud``,
    cleared first."""
    nova_cloud.clear()
    flavors = [nova_cloud.create_flavor(*flavor) for flavor in FLAVORS]
    nova_cloud.start_applier(
        "scenario-applier", applier_options="migration_timeout = 300\nresize_timeout = 300\n"
    )
    nova_cloud.start_audit_runner("scenario-audit-runner")
    return runner.run(
        workdir / "tempest",
        _tempest_conf(nova_cloud, flavors),
        regex,
        workdir / "tempest-run.log",
        RUN_TIMEOUT_S,
    )
