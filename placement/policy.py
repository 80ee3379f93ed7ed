"""Authorization: upstream's policy rules enforced with oslo.policy.

Rule names, check strings, scope types and deprecated (legacy) defaults are
upstream's, so an operator's ``policy.yaml`` keeps its meaning. With
``[oslo_policy] enforce_new_defaults = False`` each base rule also accepts
its deprecated default (``role:admin``), which every API rule inherits
through the base rule it refers to.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_policy import opts as policy_opts
from oslo_policy import policy

from placement import conf as placement_conf
from placement import errors

ADMIN_OR_SERVICE = "rule:admin_or_service_api"
SERVICE = "rule:service_api"
ADMIN_OR_PROJECT_READER_OR_SERVICE = "rule:admin_or_project_reader_or_service_api"

# Upstream names the deprecated default after the rule it used to be.
_LEGACY_ADMIN = policy.DeprecatedRule(
    name="rule:admin_api",
    check_str="role:admin",
    deprecated_reason="Placement's policies moved to role-based defaults with "
    "scope types; the admin-only legacy defaults are deprecated.",
    deprecated_since="W",
)

BASE_RULES = [
    policy.RuleDefault(
        "admin_api",
        "role:admin",
        description="Default rule for most placement APIs.",
        scope_types=["project"],
    ),
    policy.RuleDefault(
        "service_api",
        "role:service",
        description="Default rule for service-to-service placement APIs.",
        scope_types=["project"],
        deprecated_rule=_LEGACY_ADMIN,
    ),
    policy.RuleDefault(
        "admin_or_service_api",
        "role:admin or role:service",
        description="Default rule for most placement APIs.",
        scope_types=["project"],
        deprecated_rule=_LEGACY_ADMIN,
    ),
    policy.RuleDefault(
        "project_reader_api",
        "role:reader and project_id:%(project_id)s",
        description="Default rule for project level reader APIs.",
        deprecated_rule=_LEGACY_ADMIN,
    ),
    policy.RuleDefault(
        "admin_or_project_reader_or_service_api",
        "role:admin or rule:project_reader_api or role:service",
        description="Default rule for project level reader APIs.",
        scope_types=["project"],
        deprecated_rule=_LEGACY_ADMIN,
    ),
]

#: The text of a refusal (Watcher's, under ``/v1``, differs).
DENIAL = "Policy does not allow {rule} to be performed."


class _Rules:
    """Documented rules in the sample policy's order, sharing a default and scope.

    :meth:`add` declares one rule and returns its name, so each name is a
    constant beside its default and handlers use the constant.
    """

    def __init__(self, check_str: str, scope_types: list[str] | None) -> None:
        self.check_str = check_str
        self.scope_types = scope_types
        self.defaults: list[policy.DocumentedRuleDefault] = []

    def add(
        self, name: str, description: str, *operations: tuple[str, str], check_str: str = ""
    ) -> str:
        """Declare rule ``name`` guarding the (method, path) ``operations``."""
        self.defaults.append(
            policy.DocumentedRuleDefault(
                name=name,
                check_str=check_str or self.check_str,
                description=description,
                operations=[{"method": method, "path": path} for method, path in operations],
                scope_types=list(self.scope_types) if self.scope_types is not None else None,
            )
        )
        return name


_RP = "/resource_providers/{uuid}"

# Upstream's rules, in upstream's order.
_API = _Rules(ADMIN_OR_SERVICE, ["project"])

RP_LIST = _API.add(
    "placement:resource_providers:list", "List resource providers.", ("GET", "/resource_providers")
)
RP_CREATE = _API.add(
    "placement:resource_providers:create",
    "Create resource provider.",
    ("POST", "/resource_providers"),
)
RP_SHOW = _API.add("placement:resource_providers:show", "Show resource provider.", ("GET", _RP))
RP_UPDATE = _API.add(
    "placement:resource_providers:update", "Update resource provider.", ("PUT", _RP)
)
RP_DELETE = _API.add(
    "placement:resource_providers:delete", "Delete resource provider.", ("DELETE", _RP)
)
RC_LIST = _API.add(
    "placement:resource_classes:list", "List resource classes.", ("GET", "/resource_classes")
)
RC_CREATE = _API.add(
    "placement:resource_classes:create", "Create resource class.", ("POST", "/resource_classes")
)
RC_SHOW = _API.add(
    "placement:resource_classes:show", "Show resource class.", ("GET", "/resource_classes/{name}")
)
RC_UPDATE = _API.add(
    "placement:resource_classes:update",
    "Update resource class.",
    ("PUT", "/resource_classes/{name}"),
)
RC_DELETE = _API.add(
    "placement:resource_classes:delete",
    "Delete resource class.",
    ("DELETE", "/resource_classes/{name}"),
)
RP_INVENTORIES_LIST = _API.add(
    "placement:resource_providers:inventories:list",
    "List resource provider inventories.",
    ("GET", _RP + "/inventories"),
)
RP_INVENTORIES_CREATE = _API.add(
    "placement:resource_providers:inventories:create",
    "Create one resource provider inventory.",
    ("POST", _RP + "/inventories"),
)
RP_INVENTORIES_SHOW = _API.add(
    "placement:resource_providers:inventories:show",
    "Show resource provider inventory.",
    ("GET", _RP + "/inventories/{resource_class}"),
)
RP_INVENTORIES_UPDATE = _API.add(
    "placement:resource_providers:inventories:update",
    "Update resource provider inventory.",
    ("PUT", _RP + "/inventories"),
    ("PUT", _RP + "/inventories/{resource_class}"),
)
RP_INVENTORIES_DELETE = _API.add(
    "placement:resource_providers:inventories:delete",
    "Delete resource provider inventory.",
    ("DELETE", _RP + "/inventories"),
    ("DELETE", _RP + "/inventories/{resource_class}"),
)
RP_AGGREGATES_LIST = _API.add(
    "placement:resource_providers:aggregates:list",
    "List resource provider aggregates.",
    ("GET", _RP + "/aggregates"),
)
RP_AGGREGATES_UPDATE = _API.add(
    "placement:resource_providers:aggregates:update",
    "Update resource provider aggregates.",
    ("PUT", _RP + "/aggregates"),
)
RP_USAGES = _API.add(
    "placement:resource_providers:usages",
    "List resource provider usages.",
    ("GET", _RP + "/usages"),
)
# A project reader may see its own project's usages (target: the query's project_id).
USAGES = _API.add(
    "placement:usages",
    "List total resource usages for a given project.",
    ("GET", "/usages"),
    check_str=ADMIN_OR_PROJECT_READER_OR_SERVICE,
)
TRAITS_LIST = _API.add("placement:traits:list", "List traits.", ("GET", "/traits"))
TRAITS_SHOW = _API.add("placement:traits:show", "Show trait.", ("GET", "/traits/{name}"))
TRAITS_UPDATE = _API.add("placement:traits:update", "Update trait.", ("PUT", "/traits/{name}"))
TRAITS_DELETE = _API.add("placement:traits:delete", "Delete trait.", ("DELETE", "/traits/{name}"))
RP_TRAITS_LIST = _API.add(
    "placement:resource_providers:traits:list",
    "List resource provider traits.",
    ("GET", _RP + "/traits"),
)
RP_TRAITS_UPDATE = _API.add(
    "placement:resource_providers:traits:update",
    "Update resource provider traits.",
    ("PUT", _RP + "/traits"),
)
RP_TRAITS_DELETE = _API.add(
    "placement:resource_providers:traits:delete",
    "Delete resource provider traits.",
    ("DELETE", _RP + "/traits"),
)
ALLOCATIONS_MANAGE = _API.add(
    "placement:allocations:manage",
    "Manage allocations of several consumers at once.",
    ("POST", "/allocations"),
)
ALLOCATIONS_LIST = _API.add(
    "placement:allocations:list",
    "List allocations of a consumer.",
    ("GET", "/allocations/{consumer_uuid}"),
)
ALLOCATIONS_UPDATE = _API.add(
    "placement:allocations:update",
    "Update allocations of a consumer.",
    ("PUT", "/allocations/{consumer_uuid}"),
)
ALLOCATIONS_DELETE = _API.add(
    "placement:allocations:delete",
    "Delete allocations of a consumer.",
    ("DELETE", "/allocations/{consumer_uuid}"),
)
RP_ALLOCATIONS_LIST = _API.add(
    "placement:resource_providers:allocations:list",
    "List resource provider allocations.",
    ("GET", _RP + "/allocations"),
)
ALLOCATION_CANDIDATES_LIST = _API.add(
    "placement:allocation_candidates:list",
    "List allocation candidates.",
    ("GET", "/allocation_candidates"),
)
# Reshaping moves allocations between providers: only services (nova) do it.
RESHAPER_RESHAPE = _API.add(
    "placement:reshaper:reshape",
    "Reshape inventories and allocations.",
    ("POST", "/reshaper"),
    check_str=SERVICE,
)

API_RULES = _API.defaults


# --- the console's JSON routes (/console/api/…) ----------------------------------
# Read rules: their defaults are those of the Placement routes that answer the
# same facts (provider list, inventories, usages, traits, aggregates), so the
# console shows nobody more than the API would; a policy file may open them
# to readers (``role:reader``) without opening anything else.
_CONSOLE = _Rules(ADMIN_OR_SERVICE, ["project"])

CONSOLE_CAPACITY = _CONSOLE.add(
    "placement:console:capacity",
    "Show pages of provider trees with their inventories, usage, traits and "
    "aggregates, and the cloud's totals per resource class (the console's capacity page).",
    ("GET", "/console/api/capacity"),
)

CONSOLE_RULES = _CONSOLE.defaults


# --- Watcher's API under /v1 (service type infra-optim) ----------------------
# Watcher's endpoint rules default to its ``rule:admin_api``, which is
# ``role:admin or role:administrator``. That base rule's name is Placement's
# (``role:admin``), so the Watcher rules carry its expansion instead.
INFRA_OPTIM_ADMIN_API = "role:admin or role:administrator"
#: Watcher's ``rule:admin_or_service_api`` (webhooks: an alarm service calls them).
INFRA_OPTIM_ADMIN_OR_SERVICE_API = f"{INFRA_OPTIM_ADMIN_API} or role:service"

_INFRA_OPTIM = _Rules(INFRA_OPTIM_ADMIN_API, None)

GOAL_GET_ALL = _INFRA_OPTIM.add("goal:get_all", "List goals.", ("GET", "/v1/goals"))
GOAL_DETAIL = _INFRA_OPTIM.add(
    "goal:detail", "List goals with detail.", ("GET", "/v1/goals/detail")
)
GOAL_GET = _INFRA_OPTIM.add("goal:get", "Show a goal.", ("GET", "/v1/goals/{goal}"))
STRATEGY_GET_ALL = _INFRA_OPTIM.add(
    "strategy:get_all", "List strategies.", ("GET", "/v1/strategies")
)
STRATEGY_DETAIL = _INFRA_OPTIM.add(
    "strategy:detail", "List strategies with detail.", ("GET", "/v1/strategies/detail")
)
STRATEGY_GET = _INFRA_OPTIM.add(
    "strategy:get", "Show a strategy.", ("GET", "/v1/strategies/{strategy}")
)
STRATEGY_STATE = _INFRA_OPTIM.add(
    "strategy:state",
    "Show what a strategy needs and whether it has it.",
    ("GET", "/v1/strategies/{strategy}/state"),
)
AUDIT_TEMPLATE_CREATE = _INFRA_OPTIM.add(
    "audit_template:create", "Create an audit template.", ("POST", "/v1/audit_templates")
)
AUDIT_TEMPLATE_GET_ALL = _INFRA_OPTIM.add(
    "audit_template:get_all", "List audit templates.", ("GET", "/v1/audit_templates")
)
AUDIT_TEMPLATE_DETAIL = _INFRA_OPTIM.add(
    "audit_template:detail",
    "List audit templates with detail.",
    ("GET", "/v1/audit_templates/detail"),
)
AUDIT_TEMPLATE_GET = _INFRA_OPTIM.add(
    "audit_template:get",
    "Show an audit template.",
    ("GET", "/v1/audit_templates/{audit_template}"),
)
AUDIT_TEMPLATE_UPDATE = _INFRA_OPTIM.add(
    "audit_template:update",
    "Change an audit template.",
    ("PATCH", "/v1/audit_templates/{audit_template}"),
)
AUDIT_TEMPLATE_DELETE = _INFRA_OPTIM.add(
    "audit_template:delete",
    "Delete an audit template.",
    ("DELETE", "/v1/audit_templates/{audit_template}"),
)
AUDIT_CREATE = _INFRA_OPTIM.add(
    "audit:create", "Create an audit (and its action plan).", ("POST", "/v1/audits")
)
AUDIT_GET_ALL = _INFRA_OPTIM.add("audit:get_all", "List audits.", ("GET", "/v1/audits"))
AUDIT_DETAIL = _INFRA_OPTIM.add(
    "audit:detail", "List audits with detail.", ("GET", "/v1/audits/detail")
)
AUDIT_GET = _INFRA_OPTIM.add("audit:get", "Show an audit.", ("GET", "/v1/audits/{audit}"))
AUDIT_UPDATE = _INFRA_OPTIM.add(
    "audit:update",
    "Change an audit (state, interval, time window, name, parameters).",
    ("PATCH", "/v1/audits/{audit}"),
)
AUDIT_DELETE = _INFRA_OPTIM.add(
    "audit:delete", "Delete an audit.", ("DELETE", "/v1/audits/{audit}")
)
WEBHOOK_TRIGGER = _INFRA_OPTIM.add(
    "webhook:trigger",
    "Trigger a run of an EVENT audit.",
    ("POST", "/v1/webhooks/{audit}"),
    check_str=INFRA_OPTIM_ADMIN_OR_SERVICE_API,
)
ACTION_PLAN_GET_ALL = _INFRA_OPTIM.add(
    "action_plan:get_all", "List action plans.", ("GET", "/v1/action_plans")
)
ACTION_PLAN_DETAIL = _INFRA_OPTIM.add(
    "action_plan:detail", "List action plans with detail.", ("GET", "/v1/action_plans/detail")
)
ACTION_PLAN_GET = _INFRA_OPTIM.add(
    "action_plan:get", "Show an action plan.", ("GET", "/v1/action_plans/{uuid}")
)
ACTION_PLAN_UPDATE = _INFRA_OPTIM.add(
    "action_plan:update",
    "Change an action plan's state (cancel it).",
    ("PATCH", "/v1/action_plans/{uuid}"),
)
ACTION_PLAN_START = _INFRA_OPTIM.add(
    "action_plan:start", "Start an action plan.", ("POST", "/v1/action_plans/{uuid}/start")
)
ACTION_PLAN_DELETE = _INFRA_OPTIM.add(
    "action_plan:delete", "Delete an action plan.", ("DELETE", "/v1/action_plans/{uuid}")
)
ACTION_GET_ALL = _INFRA_OPTIM.add("action:get_all", "List actions.", ("GET", "/v1/actions"))
ACTION_DETAIL = _INFRA_OPTIM.add(
    "action:detail", "List actions with detail.", ("GET", "/v1/actions/detail")
)
ACTION_GET = _INFRA_OPTIM.add("action:get", "Show an action.", ("GET", "/v1/actions/{uuid}"))
ACTION_UPDATE = _INFRA_OPTIM.add(
    "action:update", "Skip a pending action.", ("PATCH", "/v1/actions/{uuid}")
)

DATA_MODEL_GET_ALL = _INFRA_OPTIM.add(
    "data_model:get_all", "Show the compute data model.", ("GET", "/v1/data_model")
)
SCORING_ENGINE_GET_ALL = _INFRA_OPTIM.add(
    "scoring_engine:get_all", "List scoring engines.", ("GET", "/v1/scoring_engines")
)
SCORING_ENGINE_DETAIL = _INFRA_OPTIM.add(
    "scoring_engine:detail",
    "List scoring engines with detail.",
    ("GET", "/v1/scoring_engines/detail"),
)
SCORING_ENGINE_GET = _INFRA_OPTIM.add(
    "scoring_engine:get",
    "Show a scoring engine.",
    ("GET", "/v1/scoring_engines/{scoring_engine}"),
)
SERVICE_GET_ALL = _INFRA_OPTIM.add("service:get_all", "List services.", ("GET", "/v1/services"))
SERVICE_DETAIL = _INFRA_OPTIM.add(
    "service:detail", "List services with detail.", ("GET", "/v1/services/detail")
)
SERVICE_GET = _INFRA_OPTIM.add("service:get", "Show a service.", ("GET", "/v1/services/{service}"))

INFRA_OPTIM_RULES = _INFRA_OPTIM.defaults


def list_rules() -> list[policy.RuleDefault]:
    """Every default rule, for ``oslopolicy-sample-generator --namespace placement``."""
    return BASE_RULES + API_RULES + CONSOLE_RULES + INFRA_OPTIM_RULES


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with our defaults; the policy file overrides them.

    A policy file that cannot be read, or holds a rule whose check string
    cannot be parsed, raises :class:`placement.conf.ConfigError` naming the
    file and rule (oslo.policy alone would log it and deny that rule at
    request time).
    """
    policy_opts.set_defaults(conf, policy_file="policy.yaml")
    enforcer = policy.Enforcer(conf)
    enforcer.suppress_default_change_warnings = True
    enforcer.register_defaults(list_rules())
    with _parser_errors():
        try:
            enforcer.load_rules()
        except (ValueError, TypeError, AttributeError) as exc:
            path = enforcer.policy_path or conf.oslo_policy.policy_file
            raise placement_conf.ConfigError(
                f"Invalid policy file {path}: {_file_problem(path) or exc}"
            ) from None
        rules = {name: rule.check_str for name, rule in enforcer.file_rules.items()}
        problem = _rules_problem(rules)
        if problem:
            raise placement_conf.ConfigError(
                f"Invalid policy file {enforcer.policy_path}: {problem}"
            )
    return enforcer


def get_enforcer() -> policy.Enforcer:
    """The ``oslo.policy.enforcer`` entry point used by the ``oslopolicy-*`` tools.

    Reads ``placement.conf`` from oslo.config's default locations.
    """
    return make_enforcer(placement_conf.load([], prog="placement"))


class _ParserErrors(logging.Handler):
    """Collects what oslo.policy's parser logs when it gives up on a rule."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


_PARSER_LOG = logging.getLogger("oslo_policy._parser")


@contextlib.contextmanager
def _parser_errors() -> Iterator[_ParserErrors]:
    """Route the parser's complaints to a collector instead of the log."""
    collector = _ParserErrors()
    propagate = _PARSER_LOG.propagate
    _PARSER_LOG.addHandler(collector)
    _PARSER_LOG.propagate = False
    try:
        yield collector
    finally:
        _PARSER_LOG.removeHandler(collector)
        _PARSER_LOG.propagate = propagate


def _file_problem(path: str) -> str | None:
    """What makes the policy file at ``path`` unusable, if we can tell."""
    try:
        with open(path, encoding="utf-8") as stream:
            content = policy.parse_file_contents(stream.read())
    except (OSError, ValueError) as exc:
        return str(exc)
    if not isinstance(content, dict):
        return "expected a mapping of rule names to check strings"
    return _rules_problem(content)


def _rules_problem(rules: dict) -> str | None:
    """The first rule oslo.policy cannot parse, described, or None."""
    for name, check_str in rules.items():
        with _parser_errors() as collector:
            try:
                policy.Rules.from_dict({name: check_str})
            except (TypeError, ValueError, AttributeError) as exc:
                collector.messages.append(str(exc))
        if collector.messages:
            return f"rule {name!r}: cannot parse {check_str!r}: {collector.messages[0]}"
    return None


def authorize(
    enforcer: policy.Enforcer,
    context: oslo_context.RequestContext,
    rule: str,
    target: dict | None = None,
    denial: str = DENIAL,
) -> None:
    """Raise :class:`errors.Forbidden` unless ``rule`` allows the request.

    A token of the wrong scope (e.g. system-scoped; every rule is for project
    tokens) is refused too; upstream's message is then just the rule name.
    ``denial`` is the message of a refusal (Watcher's differs from Placement's).
    """
    if target is None:
        target = {"project_id": context.project_id, "user_id": context.user_id}
    try:
        enforcer.authorize(rule, target, context, do_raise=True)
    except policy.InvalidScope:
        raise errors.Forbidden(rule) from None
    except policy.PolicyNotAuthorized:
        raise errors.Forbidden(denial.format(rule=rule)) from None
