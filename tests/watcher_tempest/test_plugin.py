"""watcher-tempest-plugin's tests, unchanged, against our server: Watcher's own suite.

The whole of ``watcher_tempest_plugin.tests.api``, and the scenario that boots no
server (``test_execute_dummy_optim``), run once for this module
(:func:`tests.watcher_tempest.suite.run`: a real Keystone, our Placement and our
Watcher endpoint under gunicorn, the applier and the audit runner), and each of
the plugin's tests is a test here, so a failure names the plugin's test and
shows its traceback. :data:`PLUGIN_TESTS` is every test the plugin has: one it
does not run, or one more, fails :func:`test_the_plugin_ran_exactly_these_tests`.
A test may be skipped only where the plugin skips it itself.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.watcher_tempest import runner, suite

PREFIX = "watcher_tempest_plugin.tests."

#: Every API test of watcher-tempest-plugin 3.9.0 and its dummy scenario
#: (package.module.Class.test).
PLUGIN_TESTS = (
    "api.admin.test_action.TestPatchAction.test_skip_action",
    "api.admin.test_action.TestShowListAction.test_list_actions",
    "api.admin.test_action.TestShowListAction.test_list_actions_by_action_plan",
    "api.admin.test_action.TestShowListAction.test_list_actions_by_audit",
    "api.admin.test_action.TestShowListAction.test_show_action_with_links",
    "api.admin.test_action.TestShowListAction.test_show_one_action",
    "api.admin.test_action_plan.TestCreateDeleteExecuteActionPlan.test_create_action_plan",
    "api.admin.test_action_plan.TestCreateDeleteExecuteActionPlan.test_delete_action_plan",
    "api.admin.test_action_plan.TestCreateDeleteExecuteActionPlan.test_execute_action_plan",
    "api.admin.test_action_plan.TestShowListActionPlan.test_list_action_plans",
    "api.admin.test_action_plan.TestShowListActionPlan.test_list_with_limit",
    "api.admin.test_action_plan.TestShowListActionPlan.test_show_action_plan",
    "api.admin.test_action_plan.TestShowListActionPlan.test_show_action_plan_detail",
    "api.admin.test_action_plan.TestShowListActionPlan.test_show_action_plan_with_links",
    "api.admin.test_api_discovery.TestApiDiscovery.test_api_versions",
    "api.admin.test_api_discovery.TestApiDiscovery.test_default_version",
    "api.admin.test_api_discovery.TestApiDiscovery.test_version_1_resources",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_audit_continuous",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_audit_oneshot",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_invalid_state",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_no_state",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_wrong_audit_template",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_create_continuous_audit_with_crontab_interval",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_delete_audit",
    "api.admin.test_audit.TestCreateUpdateDeleteAudit.test_update_audit",
    "api.admin.test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_actionplan_superseding",
    "api.admin.test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_crontab_formats",
    "api.admin.test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_interval_updates",
    "api.admin.test_audit.TestCreateUpdateDeleteAuditV11.test_create_continuous_audit_with_start_end_time",
    "api.admin.test_audit.TestCreateUpdateDeleteAuditV14.test_create_audit_event",
    "api.admin.test_audit.TestShowListAudit.test_list_audits",
    "api.admin.test_audit.TestShowListAudit.test_list_audits_related_to_given_audit_template",
    "api.admin.test_audit.TestShowListAudit.test_list_with_limit",
    "api.admin.test_audit.TestShowListAudit.test_show_audit",
    "api.admin.test_audit.TestShowListAudit.test_show_audit_with_links",
    "api.admin.test_audit_template.TestAuditTemplate.test_filter_audit_template_by_goal_uuid",
    "api.admin.test_audit_template.TestAuditTemplate.test_filter_audit_template_by_strategy_uuid",
    "api.admin.test_audit_template.TestAuditTemplate.test_list_audit_templates",
    "api.admin.test_audit_template.TestAuditTemplate.test_list_with_limit",
    "api.admin.test_audit_template.TestAuditTemplate.test_show_audit_template",
    "api.admin.test_audit_template.TestAuditTemplate.test_show_audit_template_with_links",
    "api.admin.test_audit_template.TestAuditTemplate.test_update_audit_template_add",
    "api.admin.test_audit_template.TestAuditTemplate.test_update_audit_template_remove",
    "api.admin.test_audit_template.TestAuditTemplate.test_update_audit_template_replace",
    "api.admin.test_audit_template.TestCreateDeleteAuditTemplate.test_create_audit_template",
    "api.admin.test_audit_template.TestCreateDeleteAuditTemplate.test_create_audit_template_unicode_description",
    "api.admin.test_audit_template.TestCreateDeleteAuditTemplate.test_delete_audit_template",
    "api.admin.test_data_model.TestListDataModel.test_list_data_models",
    "api.admin.test_data_model.TestNegativeListDataModel.test_list_data_models_storage",
    "api.admin.test_goal.TestShowListGoal.test_list_goals",
    "api.admin.test_goal.TestShowListGoal.test_show_goal",
    "api.admin.test_goal.TestShowListGoal.test_show_goal_with_links",
    "api.admin.test_scoring_engine.TestShowListScoringEngine.test_list_scoring_engines",
    "api.admin.test_scoring_engine.TestShowListScoringEngine.test_show_scoring_engine",
    "api.admin.test_scoring_engine.TestShowListScoringEngine.test_show_scoring_engine_with_links",
    "api.admin.test_service.TestShowListService.test_list_services",
    "api.admin.test_service.TestShowListService.test_show_service",
    "api.admin.test_service.TestShowListService.test_show_service_with_links",
    "api.admin.test_strategy.TestShowListStrategy.test_list_strategies",
    "api.admin.test_strategy.TestShowListStrategy.test_show_strategy",
    "api.admin.test_strategy.TestShowListStrategy.test_show_strategy_with_links",
    "scenario.test_execute_dummy_optim.TestExecuteDummyStrategy.test_execute_dummy_strategy",
)

#: Skipped by the plugin itself (``skip_because``), upstream too.
SKIPPED_BY_THE_PLUGIN = {"api.admin.test_audit.TestShowListAudit.test_list_with_limit": "2134046"}


@pytest.fixture(scope="module")
def outcomes() -> Iterator[dict[str, runner.Outcome]]:
    with tempfile.TemporaryDirectory(prefix="watcher-tempest-") as workdir:
        yield suite.run(Path(workdir))


def test_the_plugin_ran_exactly_these_tests(outcomes: dict[str, runner.Outcome]) -> None:
    assert sorted(name.removeprefix(PREFIX) for name in outcomes) == sorted(PLUGIN_TESTS)


@pytest.mark.parametrize("name", PLUGIN_TESTS)
def test_the_plugins_test_passes(outcomes: dict[str, runner.Outcome], name: str) -> None:
    outcome = outcomes.get(PREFIX + name)
    assert outcome is not None, f"the plugin did not run {name}"
    if name in SKIPPED_BY_THE_PLUGIN:
        assert outcome.status == "skip", outcome.details
        assert SKIPPED_BY_THE_PLUGIN[name] in outcome.details
        return
    assert outcome.status == "success", outcome.details
