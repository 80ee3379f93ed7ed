"""watcher-tempest-plugin's API tests, unchanged, against our server: Watcher's own suite.

The whole of ``watcher_tempest_plugin.tests.api`` runs once for this module
(:func:`tests.watcher_tempest.suite.run`: a real Keystone, our Placement and our
Watcher endpoint under gunicorn, the applier and the audit runner), and each of
the plugin's tests is a test here, so a failure names the plugin's test and
shows its traceback. :data:`PLUGIN_TESTS` is every test the plugin has: one it
does not run, or one more, fails :func:`test_the_plugin_ran_exactly_its_api_tests`.
A test may be skipped only where the plugin skips it itself.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.watcher_tempest import suite

PREFIX = "watcher_tempest_plugin.tests.api.admin."

#: Every API test of watcher-tempest-plugin 3.9.0 (module.Class.test).
PLUGIN_TESTS = (
    "test_action.TestPatchAction.test_skip_action",
    "test_action.TestShowListAction.test_list_actions",
    "test_action.TestShowListAction.test_list_actions_by_action_plan",
    "test_action.TestShowListAction.test_list_actions_by_audit",
    "test_action.TestShowListAction.test_show_action_with_links",
    "test_action.TestShowListAction.test_show_one_action",
    "test_action_plan.TestCreateDeleteExecuteActionPlan.test_create_action_plan",
    "test_action_plan.TestCreateDeleteExecuteActionPlan.test_delete_action_plan",
    "test_action_plan.TestCreateDeleteExecuteActionPlan.test_execute_action_plan",
    "test_action_plan.TestShowListActionPlan.test_list_action_plans",
    "test_action_plan.TestShowListActionPlan.test_list_with_limit",
    "test_action_plan.TestShowListActionPlan.test_show_action_plan",
    "test_action_plan.TestShowListActionPlan.test_show_action_plan_detail",
    "test_action_plan.TestShowListActionPlan.test_show_action_plan_with_links",
    "test_api_discovery.TestApiDiscovery.test_api_versions",
    "test_api_discovery.TestApiDiscovery.test_default_version",
    "test_api_discovery.TestApiDiscovery.test_version_1_resources",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_audit_continuous",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_audit_oneshot",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_invalid_state",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_no_state",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_audit_with_wrong_audit_template",
    "test_audit.TestCreateUpdateDeleteAudit.test_create_continuous_audit_with_crontab_interval",
    "test_audit.TestCreateUpdateDeleteAudit.test_delete_audit",
    "test_audit.TestCreateUpdateDeleteAudit.test_update_audit",
    "test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_actionplan_superseding",
    "test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_crontab_formats",
    "test_audit.TestCreateUpdateDeleteAuditV11.test_continuous_audit_interval_updates",
    "test_audit.TestCreateUpdateDeleteAuditV11.test_create_continuous_audit_with_start_end_time",
    "test_audit.TestCreateUpdateDeleteAuditV14.test_create_audit_event",
    "test_audit.TestShowListAudit.test_list_audits",
    "test_audit.TestShowListAudit.test_list_audits_related_to_given_audit_template",
    "test_audit.TestShowListAudit.test_list_with_limit",
    "test_audit.TestShowListAudit.test_show_audit",
    "test_audit.TestShowListAudit.test_show_audit_with_links",
    "test_audit_template.TestAuditTemplate.test_filter_audit_template_by_goal_uuid",
    "test_audit_template.TestAuditTemplate.test_filter_audit_template_by_strategy_uuid",
    "test_audit_template.TestAuditTemplate.test_list_audit_templates",
    "test_audit_template.TestAuditTemplate.test_list_with_limit",
    "test_audit_template.TestAuditTemplate.test_show_audit_template",
    "test_audit_template.TestAuditTemplate.test_show_audit_template_with_links",
    "test_audit_template.TestAuditTemplate.test_update_audit_template_add",
    "test_audit_template.TestAuditTemplate.test_update_audit_template_remove",
    "test_audit_template.TestAuditTemplate.test_update_audit_template_replace",
    "test_audit_template.TestCreateDeleteAuditTemplate.test_create_audit_template",
    "test_audit_template.TestCreateDeleteAuditTemplate.test_create_audit_template_unicode_description",
    "test_audit_template.TestCreateDeleteAuditTemplate.test_delete_audit_template",
    "test_data_model.TestListDataModel.test_list_data_models",
    "test_data_model.TestNegativeListDataModel.test_list_data_models_storage",
    "test_goal.TestShowListGoal.test_list_goals",
    "test_goal.TestShowListGoal.test_show_goal",
    "test_goal.TestShowListGoal.test_show_goal_with_links",
    "test_scoring_engine.TestShowListScoringEngine.test_list_scoring_engines",
    "test_scoring_engine.TestShowListScoringEngine.test_show_scoring_engine",
    "test_scoring_engine.TestShowListScoringEngine.test_show_scoring_engine_with_links",
    "test_service.TestShowListService.test_list_services",
    "test_service.TestShowListService.test_show_service",
    "test_service.TestShowListService.test_show_service_with_links",
    "test_strategy.TestShowListStrategy.test_list_strategies",
    "test_strategy.TestShowListStrategy.test_show_strategy",
    "test_strategy.TestShowListStrategy.test_show_strategy_with_links",
)

#: Skipped by the plugin itself (``skip_because``), upstream too.
SKIPPED_BY_THE_PLUGIN = {"test_audit.TestShowListAudit.test_list_with_limit": "2134046"}


@pytest.fixture(scope="module")
def outcomes() -> Iterator[dict[str, suite.Outcome]]:
    with tempfile.TemporaryDirectory(prefix="watcher-tempest-") as workdir:
        yield suite.run(Path(workdir))


def test_the_plugin_ran_exactly_its_api_tests(outcomes: dict[str, suite.Outcome]) -> None:
    assert sorted(name.removeprefix(PREFIX) for name in outcomes) == sorted(PLUGIN_TESTS)


@pytest.mark.parametrize("name", PLUGIN_TESTS)
def test_the_plugins_api_test_passes(outcomes: dict[str, suite.Outcome], name: str) -> None:
    outcome = outcomes.get(PREFIX + name)
    assert outcome is not None, f"the plugin did not run {name}"
    if name in SKIPPED_BY_THE_PLUGIN:
        assert outcome.status == "skip", outcome.details
        assert SKIPPED_BY_THE_PLUGIN[name] in outcome.details
        return
    assert outcome.status == "success", outcome.details
