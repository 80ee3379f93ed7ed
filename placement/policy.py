"""Authorization: upstream's policy rules enforced with oslo.policy.

Rule names, check strings, scope types and deprecated (legacy) defaults are
upstream's, so an operator's ``policy.yaml`` keeps its meaning. With
``[oslo_policy] enforce_new_defaults = False`` each rule also accepts its
deprecated default (``role:admin``).
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from placement import errors

ADMIN = "role:admin"
_DEPRECATED_REASON = "Placement moved to role-based defaults with reader/service roles."
_DEPRECATED_SINCE = "W"


def _deprecated(name: str) -> policy.DeprecatedRule:
    return policy.DeprecatedRule(name=name, check_str=ADMIN,
                                 deprecated_reason=_DEPRECATED_REASON,
                                 deprecated_since=_DEPRECATED_SINCE)


BASE_RULES = [
    policy.RuleDefault("admin_api", ADMIN, description="Default rule for most placement APIs.",
                       scope_types=["project"]),
    policy.RuleDefault("service_api", "role:service",
                       description="Default rule for service-to-service APIs.",
                       deprecated_rule=policy.DeprecatedRule(
                           name="service_api", check_str="rule:admin_api",
                           deprecated_reason=_DEPRECATED_REASON,
                           deprecated_since=_DEPRECATED_SINCE),
                       scope_types=["project"]),
    policy.RuleDefault("admin_or_service_api", "role:admin or role:service",
                       description="Default rule for most placement APIs.",
                       deprecated_rule=_deprecated("admin_or_service_api"),
                       scope_types=["project"]),
    policy.RuleDefault("project_reader_api", "role:reader and project_id:%(project_id)s",
                       description="Default rule for project level reader APIs.",
                       deprecated_rule=_deprecated("project_reader_api")),
    policy.RuleDefault("admin_or_project_reader_or_service_api",
                       "role:admin or rule:project_reader_api or role:service",
                       description="Default rule for project level reader APIs.",
                       deprecated_rule=_deprecated("admin_or_project_reader_or_service_api"),
                       scope_types=["project"]),
]

ADMIN_OR_SERVICE = "rule:admin_or_service_api"

# (rule name, check string, [(method, path)], description)
_API_RULES = [
    ("placement:resource_providers:list", [("GET", "/resource_providers")],
     "List resource providers."),
    ("placement:resource_providers:create", [("POST", "/resource_providers")],
     "Create resource provider."),
    ("placement:resource_providers:show", [("GET", "/resource_providers/{uuid}")],
     "Show resource provider."),
    ("placement:resource_providers:update", [("PUT", "/resource_providers/{uuid}")],
     "Update resource provider."),
    ("placement:resource_providers:delete", [("DELETE", "/resource_providers/{uuid}")],
     "Delete resource provider."),
    ("placement:resource_classes:list", [("GET", "/resource_classes")],
     "List resource classes."),
    ("placement:resource_classes:create", [("POST", "/resource_classes")],
     "Create resource class."),
    ("placement:resource_classes:show", [("GET", "/resource_classes/{name}")],
     "Show resource class."),
    ("placement:resource_classes:update", [("PUT", "/resource_classes/{name}")],
     "Update resource class."),
    ("placement:resource_classes:delete", [("DELETE", "/resource_classes/{name}")],
     "Delete resource class."),
    ("placement:resource_providers:inventories:list",
     [("GET", "/resource_providers/{uuid}/inventories")], "List resource provider inventories."),
    ("placement:resource_providers:inventories:create",
     [("POST", "/resource_providers/{uuid}/inventories")], "Create one resource provider inventory."),
    ("placement:resource_providers:inventories:show",
     [("GET", "/resource_providers/{uuid}/inventories/{resource_class}")],
     "Show resource provider inventory."),
    ("placement:resource_providers:inventories:update",
     [("PUT", "/resource_providers/{uuid}/inventories"),
      ("PUT", "/resource_providers/{uuid}/inventories/{resource_class}")],
     "Update resource provider inventory."),
    ("placement:resource_providers:inventories:delete",
     [("DELETE", "/resource_providers/{uuid}/inventories"),
      ("DELETE", "/resource_providers/{uuid}/inventories/{resource_class}")],
     "Delete resource provider inventory."),
    ("placement:resource_providers:aggregates:list",
     [("GET", "/resource_providers/{uuid}/aggregates")], "List resource provider aggregates."),
    ("placement:resource_providers:aggregates:update",
     [("PUT", "/resource_providers/{uuid}/aggregates")], "Update resource provider aggregates."),
    ("placement:resource_providers:usages", [("GET", "/resource_providers/{uuid}/usages")],
     "List resource provider usages."),
    ("placement:traits:list", [("GET", "/traits")], "List traits."),
    ("placement:traits:show", [("GET", "/traits/{name}")], "Show trait."),
    ("placement:traits:update", [("PUT", "/traits/{name}")], "Update trait."),
    ("placement:traits:delete", [("DELETE", "/traits/{name}")], "Delete trait."),
    ("placement:resource_providers:traits:list",
     [("GET", "/resource_providers/{uuid}/traits")], "List resource provider traits."),
    ("placement:resource_providers:traits:update",
     [("PUT", "/resource_providers/{uuid}/traits")], "Update resource provider traits."),
    ("placement:resource_providers:traits:delete",
     [("DELETE", "/resource_providers/{uuid}/traits")], "Delete resource provider traits."),
    ("placement:allocations:manage", [("POST", "/allocations")],
     "Manage allocations of several consumers."),
    ("placement:allocations:list", [("GET", "/allocations/{consumer_uuid}")],
     "List allocations of a consumer."),
    ("placement:allocations:update", [("PUT", "/allocations/{consumer_uuid}")],
     "Update allocations of a consumer."),
    ("placement:allocations:delete", [("DELETE", "/allocations/{consumer_uuid}")],
     "Delete allocations of a consumer."),
    ("placement:resource_providers:allocations:list",
     [("GET", "/resource_providers/{uuid}/allocations")], "List resource provider allocations."),
    ("placement:allocation_candidates:list", [("GET", "/allocation_candidates")],
     "List allocation candidates."),
]

API_RULES = [
    policy.DocumentedRuleDefault(
        name=name, check_str=ADMIN_OR_SERVICE, description=description,
        operations=[{"method": m, "path": p} for m, p in operations],
        scope_types=["project"])
    for name, operations, description in _API_RULES
] + [
    policy.DocumentedRuleDefault(
        name="placement:usages", check_str="rule:admin_or_project_reader_or_service_api",
        description="List total resource usages for a given project.",
        operations=[{"method": "GET", "path": "/usages"}], scope_types=["project"]),
    policy.DocumentedRuleDefault(
        name="placement:reshaper:reshape", check_str="rule:service_api",
        description="Reshape inventories and allocations.",
        operations=[{"method": "POST", "path": "/reshaper"}], scope_types=["project"]),
]


def list_rules() -> list[policy.RuleDefault]:
    """Every default rule, for oslopolicy-sample-generator."""
    return BASE_RULES + API_RULES


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with our defaults; ``policy.yaml`` overrides them."""
    policy_opts.set_defaults(conf, policy_file="policy.yaml")
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(list_rules())
    enforcer.load_rules()
    return enforcer


def authorize(enforcer: policy.Enforcer, context: oslo_context.RequestContext,
              rule: str, target: dict | None = None) -> None:
    """Raise :class:`errors.Forbidden` unless ``rule`` allows the request."""
    if target is None:
        target = {"project_id": context.project_id, "user_id": context.user_id}
    try:
        enforcer.authorize(rule, target, context, do_raise=True)
    except policy.InvalidScope:
        raise errors.Forbidden(f"Policy does not allow {rule} to be performed.") from None
    except policy.PolicyNotAuthorized:
        raise errors.Forbidden(f"Policy does not allow {rule} to be performed.") from None
