"""watcher-tempest-plugin's scenario tests, unchanged, on the Nova cloud and our server.

The plugin's whole ``tests.scenario`` package runs once for this module
(:func:`tests.watcher_tempest.scenarios.run`) on the session's Nova cloud, with
``[optimize] datasource = prometheus``: it boots servers through Nova, writes
their load into the cloud's Prometheus, asks our Watcher API for audits and
executes the plans through Nova. Each of its tests is a test here. The classes
needing what the cloud does not have skip themselves, for the reason
:data:`SKIPPED_CLASSES` gives (no Cinder; no real guests), and a guard fails if
the plugin runs a test we do not list or skips one we expect to run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.nova import cloud
from tests.watcher_tempest import runner, scenarios

PREFIX = "watcher_tempest_plugin.tests.scenario."

#: Every scenario test of watcher-tempest-plugin 3.9.0 that needs neither Cinder nor a
#: real guest (module.Class.test): all pass on ours.
PASSING = (
    "test_continuous_audit.TestContinuousAudit.test_continuous_audit_zone_migration",
    "test_data_model.TestDataModel.test_data_model_with_instances",
    "test_data_model.TestDataModelWithExtendedAttributes.test_data_model_with_extended_attributes",
    "test_execute_actuator.TestExecuteActionsViaActuator.test_execute_scenarios",
    "test_execute_basic_optim.TestExecuteBasicStrategy.test_execute_basic_strategy",
    "test_execute_dummy_optim.TestExecuteDummyStrategy.test_execute_dummy_strategy",
    "test_execute_host_maintenance.TestExecuteHostMaintenanceStrategy"
    ".test_execute_host_maintenance_strategy",
    "test_execute_host_maintenance.TestExecuteHostMaintenanceStrategy"
    ".test_execute_host_maintenance_strategy_backup_node",
    "test_execute_node_resource_consolidation.TestExecuteNodeResourceConsolidationStrategy"
    ".test_execute_node_resource_consolidation_strategy_with_auto",
    "test_execute_node_resource_consolidation.TestExecuteNodeResourceConsolidationStrategy"
    ".test_execute_node_resource_consolidation_strategy_with_specify",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances.test_migrate_instance_deleted",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances"
    ".test_migrate_live_instance_shutoff",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances"
    ".test_migrate_wrong_destination_host",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances"
    ".test_migrate_wrong_source_host",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances"
    ".test_nova_service_state_change",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances.test_resize_invalid_flavor",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances.test_resize_invalid_instance",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances.test_stop_invalid_instance",
    "test_execute_skipped_actions.TestExecuteSkippedActionsInstances.test_stop_stopped_instance",
    "test_execute_vm_workload_consolidation.TestExecuteVmWorkloadConsolidationStrategy"
    ".test_execute_vm_workload_consolidation_strategy",
    "test_execute_workload_balance.TestExecuteWorkloadBalanceStrategy"
    ".test_execute_workload_balance_strategy_cpu",
    "test_execute_workload_balance.TestExecuteWorkloadBalanceStrategy"
    ".test_execute_workload_balance_strategy_ram",
    "test_execute_workload_stabilization.TestExecuteWorkloadStabilizationStrategy"
    ".test_execute_workload_stabilization_strategy_cpu",
    "test_execute_workload_stabilization.TestExecuteWorkloadStabilizationStrategy"
    ".test_execute_workload_stabilization_strategy_ram",
    "test_execute_zone_migration.TestExecuteZoneMigrationStrategy"
    ".test_execute_zone_migration_with_destination_host",
    "test_execute_zone_migration.TestExecuteZoneMigrationStrategy"
    ".test_execute_zone_migration_without_destination_host",
)

_NO_CINDER = "Cinder is not available"
#: The classes that skip themselves on this cloud (module.Class), with the reason they
#: give: volumes need Cinder, which the cloud does not run; ``strategies_real`` burns
#: load inside real guests reached over floating IPs, and Nova's fake driver runs none.
SKIPPED_CLASSES = {
    "test_execute_host_maintenance.TestExecuteHostMaintenanceStrategyBfV": _NO_CINDER,
    "test_execute_node_resource_consolidation.TestNodeResourceConsolidationStrategyBfV": (
        _NO_CINDER
    ),
    "test_execute_skipped_actions.TestExecuteSkippedActionsVolumes": _NO_CINDER,
    "test_execute_storage_balance.TestExecuteStorageCapacityBalanceStrategy": (
        "Cinder multi-backend feature disabled"
    ),
    "test_execute_strategies_real.TestRealExecuteStrategies": (
        "network_feature_enabled.floating_ips option must be enabled"
    ),
    "test_execute_vm_workload_consolidation.TestExecuteVmWorkloadConsolidationStrategyBfV": (
        _NO_CINDER
    ),
    "test_execute_workload_balance.TestExecuteWorkloadBalanceStrategyBfV": _NO_CINDER,
    "test_execute_workload_stabilization.TestExecuteWorkloadStabilizationStrategyBfV": (_NO_CINDER),
    "test_execute_zone_migration.TestExecuteZoneMigrationStrategyVolume": _NO_CINDER,
    "test_execute_zone_migration.TestExecuteZoneMigrationStrategyVolumeBfV": _NO_CINDER,
}


def _skip_id(cls: str) -> str:
    """How subunit names a class that skipped itself in ``setUpClass``."""
    return f"setUpClass ({PREFIX}{cls})"


@pytest.fixture(scope="module")
def outcomes(
    nova_cloud: cloud.Cloud, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, runner.Outcome]]:
    yield scenarios.run(nova_cloud, Path(tmp_path_factory.mktemp("watcher-scenarios")))


def test_the_plugin_ran_exactly_these_tests(outcomes: dict[str, runner.Outcome]) -> None:
    expected = {PREFIX + name for name in PASSING} | {_skip_id(c) for c in SKIPPED_CLASSES}
    assert sorted(outcomes) == sorted(expected)


@pytest.mark.parametrize("name", PASSING)
def test_the_plugins_scenario_passes(outcomes: dict[str, runner.Outcome], name: str) -> None:
    outcome = outcomes.get(PREFIX + name)
    assert outcome is not None, f"the plugin did not run {name}"
    assert outcome.status == "success", outcome.details


@pytest.mark.parametrize("cls", sorted(SKIPPED_CLASSES))
def test_the_plugin_skips_what_the_cloud_lacks(
    outcomes: dict[str, runner.Outcome], cls: str
) -> None:
    outcome = outcomes.get(_skip_id(cls))
    assert outcome is not None, f"the plugin did not skip {cls}"
    assert outcome.status == "skip", outcome.details
    assert SKIPPED_CLASSES[cls] in outcome.details
