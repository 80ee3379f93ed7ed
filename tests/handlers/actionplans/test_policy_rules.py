"""Watcher's rule names and defaults, on the same enforcer as Placement's."""

from __future__ import annotations

import pytest
from oslo_context import context as oslo_context
from oslo_policy import opts as policy_opts

from placement import conf as placement_conf
from placement import errors, policy

SERVED = {
    "goal:get_all", "goal:detail", "goal:get",
    "strategy:get_all", "strategy:detail", "strategy:get", "strategy:state",
    "audit_template:create", "audit_template:get_all", "audit_template:detail",
    "audit_template:get", "audit_template:update", "audit_template:delete",
    "audit:create", "audit:get_all", "audit:detail", "audit:get", "audit:update",
    "audit:delete",
    "webhook:trigger",
    "action_plan:get_all", "action_plan:detail", "action_plan:get",
    "action_plan:update", "action_plan:start", "action_plan:delete",
    "action:get_all", "action:detail", "action:get", "action:update",
    "data_model:get_all",
    "scoring_engine:get_all", "scoring_engine:detail", "scoring_engine:get",
    "service:get_all", "service:detail", "service:get",
}  # fmt: skip
#: Upstream lets services trigger an EVENT audit's webhook (Aodh's alarms do).
ADMIN_OR_SERVICE = {"webhook:trigger"}


def test_rules_of_the_served_routes_default_to_watchers_admin():
    rules = {rule.name: rule for rule in policy.INFRA_OPTIM_RULES}
    assert set(rules) == SERVED
    for name, rule in rules.items():
        admin = "role:admin or role:administrator"
        assert rule.check_str == (
            f"{admin} or role:service" if name in ADMIN_OR_SERVICE else admin
        ), name
        assert not rule.scope_types


def test_listed_for_the_sample_policy():
    names = {rule.name for rule in policy.list_rules()}
    assert SERVED <= names


@pytest.fixture(scope="module")
def enforcer(tmp_path_factory):
    conf = placement_conf.load([], default_config_files=[])
    policy_opts.set_defaults(conf)
    conf.set_override(
        "policy_file", str(tmp_path_factory.mktemp("p") / "none.yaml"), group="oslo_policy"
    )
    return policy.make_enforcer(conf)


@pytest.mark.parametrize(
    "roles, allowed",
    [(["admin"], True), (["administrator"], True), (["service"], False), (["member"], False)],
)
def test_who_may(enforcer, roles, allowed):
    context = oslo_context.RequestContext(user_id="u", project_id="p", roles=roles)
    denial = "Policy doesn't allow {rule} to be performed."
    if allowed:
        policy.authorize(enforcer, context, "audit:create", denial=denial)
    else:
        with pytest.raises(
            errors.Forbidden, match="Policy doesn't allow audit:create to be performed."
        ):
            policy.authorize(enforcer, context, "audit:create", denial=denial)
