"""Options of the action-plan subsystem, in upstream Watcher's groups.

``placement.conf`` registers these groups beside Placement's own, so they are
validated at start-up and listed in the sample config. Weights and parallelizations
are ``type:value`` dicts with integer values: unlike upstream, which keeps the
strings and sorts them as text, a non-integer stops start-up naming the option.
The defaults are the built-in action types' declarations; an installed plugin's
type adds its own declared defaults while an option is left unset.

``[watcher_applier] executor`` chooses who performs the actions: the set of
action types the applier runs and audits are checked against
(``placement/effects/registry.py``). ``placement`` edits Placement's own
tables (doc/planner.md §5); ``nova`` asks Nova's compute API and waits for it,
within the per-type bounds of ``[watcher_applier]``. Nova is reached as
upstream Watcher reaches it: a keystoneauth session from
``[watcher_clients_auth]`` (keystoneauth's session and auth options, so
``auth_type = admin_token`` with ``endpoint`` and ``token`` reaches a Nova
without Keystone, ``auth_type = password`` with ``auth_url`` and the user's
names through Keystone; the auth plugin's own options are registered when it
is loaded), and the compute endpoint from its catalog by ``[nova_client]``'s
``endpoint_type`` and ``region_name``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from keystoneauth1 import loading as ka_loading
from oslo_config import cfg, types

from placement.actionplans import datasources
from placement.actionplans.action_types import BUILTIN
from placement.actionplans.planners import PLANNERS, PlannerOptions, options
from placement.actionplans.planners.options import (
    DEFAULT_PARALLELIZATION,
    DEFAULT_PLANNER,
    DEFAULT_STABILIZATION_WEIGHTS,
    DEFAULT_WEIGHTS,
    ActionTypes,
)
from placement.actionplans.strategies import STRATEGIES

PLANNER_GROUP = "watcher_planner"
WEIGHT_GROUP = "watcher_planners.weight"
STABILIZATION_GROUP = "watcher_planners.workload_stabilization"
TASKFLOW_GROUP = "watcher_workflow_engines.taskflow"

APPLIER_GROUP = "watcher_applier"
DECISION_ENGINE_GROUP = "watcher_decision_engine"
CLIENTS_AUTH_GROUP = "watcher_clients_auth"
NOVA_CLIENT_GROUP = "nova_client"
DATASOURCES_GROUP = "watcher_datasources"
PROMETHEUS_GROUP = "prometheus_client"

#: The executors: ``placement`` (our tables only) and ``nova`` (Nova's compute API).
PLACEMENT = "placement"
NOVA = "nova"
EXECUTORS = (PLACEMENT, NOVA)

#: Upstream Watcher's ``[nova_client] api_version`` default (and its minimum).
DEFAULT_NOVA_API_VERSION = "2.56"

_applier_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "executor",
        default=PLACEMENT,
        choices=[
            (PLACEMENT, "Actions edit Placement's own data (allocations, traits, inventories)."),
            (NOVA, "Actions are asked of Nova's compute API; Nova moves the allocations."),
        ],
        help="Who performs the actions of action plans. Audits whose actions the "
        "executor cannot perform are refused when they are created.",
    ),
    cfg.FloatOpt(
        "migration_timeout",
        default=900.0,
        min=1.0,
        help="Seconds a migrate action waits for Nova to finish a live or cold migration "
        "(a cold one confirmed) before it fails.",
    ),
    cfg.FloatOpt(
        "resize_timeout",
        default=900.0,
        min=1.0,
        help="Seconds a resize action waits for Nova to resize and confirm before it fails.",
    ),
    cfg.FloatOpt(
        "server_state_timeout",
        default=300.0,
        min=1.0,
        help="Seconds a stop, shelve or delete action waits for the server to reach its "
        "state before it fails.",
    ),
    cfg.FloatOpt(
        "nova_poll_interval",
        default=2.0,
        min=0.05,
        help="Seconds between two looks at Nova while an action waits for it.",
    ),
    cfg.IntOpt(
        "nova_retries",
        default=3,
        min=0,
        help="How many times a call Nova could not answer (no connection, a timeout, a "
        "502, 503 or 504: a restart, a failover, Keystone down behind it) is sent again "
        "before the action gives up on it, waiting nova_retry_backoff seconds before the "
        "first and twice as long before each next. A call that may have reached Nova "
        "(its answer was lost) and changes something is never sent again blindly: the "
        "action reads Nova's records instead. While an action waits for Nova, looks "
        "that find it unreachable go on until the action's own bound.",
    ),
    cfg.FloatOpt(
        "nova_retry_backoff",
        default=1.0,
        min=0.0,
        help="Seconds before the first retry of a call Nova could not answer; doubled for "
        "each next one (see nova_retries).",
    ),
]

_nova_client_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "api_version",
        default=DEFAULT_NOVA_API_VERSION,
        help="Upstream Watcher's compute API version, accepted so its configuration files "
        "load. The nova executor sends each call at the microversion that call needs "
        "(2.1 to 2.59, and 2.84 for Nova's details of a failed step when offered); "
        "a Nova too old for a call refuses it and the action fails with Nova's message.",
    ),
    cfg.StrOpt(
        "endpoint_type",
        default="publicURL",
        choices=["public", "internal", "admin", "publicURL", "internalURL", "adminURL"],
        help="Interface of the compute endpoint taken from the catalog.",
    ),
    cfg.StrOpt(
        "region_name",
        help="Region of the compute endpoint taken from the catalog.",
    ),
]


def _clients_auth_opts() -> list[cfg.Opt]:
    """keystoneauth's session options and its auth plugin choice (``auth_type``,
    ``auth_section``), as upstream Watcher lists them."""
    return ka_loading.get_session_conf_options() + ka_loading.get_auth_common_conf_options()


def _weights_opt(name: str, default: dict[str, int], help_text: str) -> cfg.Opt:
    """A ``type:integer`` dict option; a configured dict replaces the default whole."""
    return cfg.Opt(
        name,
        type=types.Dict(value_type=types.Integer()),
        default=dict(default),
        help=help_text,
    )


_planner_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "planner",
        default=DEFAULT_PLANNER,
        choices=sorted(PLANNERS),
        help="Planner of the plans whose strategy does not choose one "
        "(the actuator strategy, unless its audit names a planner).",
    ),
]

_weight_opts: list[cfg.Opt] = [
    _weights_opt(
        "weights",
        DEFAULT_WEIGHTS,
        "Weight of each action type for the weight planner: heavier types are "
        "planned first; types with the same weight share layers.",
    ),
    _weights_opt(
        "parallelization",
        DEFAULT_PARALLELIZATION,
        "How many actions of a type may run side by side in one layer of the weight "
        "planner (below 1 counts as 1).",
    ),
]

_stabilization_opts: list[cfg.Opt] = [
    _weights_opt(
        "weights",
        DEFAULT_STABILIZATION_WEIGHTS,
        "Weight of each action type for the workload_stabilization planner: actions "
        "are processed heaviest first.",
    ),
]

_taskflow_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "max_workers",
        default=os.cpu_count() or 1,
        sample_default="<number of CPUs>",
        min=1,
        help="How many actions of action plans may run at once.",
    ),
]

#: Plan expiry, in upstream's ``[watcher_decision_engine]`` (checked by placement-applier).
_expiry_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "action_plan_expiry",
        default=24,
        min=0,
        help="Hours after which a RECOMMENDED action plan, planned on capacity that old, "
        "becomes SUPERSEDED and can no longer be started.",
    ),
    cfg.IntOpt(
        "check_periodic_interval",
        default=30 * 60,
        min=1,
        help="Seconds between two looks for expired action plans (each placement-applier looks).",
    ),
]

#: The audit runner's, in upstream's ``[watcher_decision_engine]``.
_audit_runner_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "continuous_audit_interval",
        default=10,
        min=1,
        help="Seconds between two looks of placement-audit-runner for due CONTINUOUS "
        "audits and triggered EVENT audits (a due audit waits at most this long).",
    ),
    cfg.FloatOpt(
        "audit_lease",
        default=30.0,
        min=1.0,
        help="Seconds an audit runner's claim on a running audit holds without renewal "
        "(renewed every third of it); another runner takes over an audit whose lease "
        "ran out. Not an upstream option: upstream pins audits to a host.",
    ),
]


def _datasources_opt(default: list[str] | None, help_text: str) -> cfg.Opt:
    names = [*datasources.DECLARED, *datasources.NOT_SERVED]
    return cfg.ListOpt(
        "datasources",
        item_type=types.String(choices=names),
        default=default,
        help=help_text,
    )


_DATASOURCE_NAMES_HELP = (
    " Served here: prometheus ([prometheus_client]). Upstream's gnocchi, grafana and "
    "aetos are accepted so its files load, and passed over (with the reason in the "
    "audit's status_message) as upstream passes over one it cannot reach."
)

#: ``[watcher_datasources]``: which datasources metric strategies read, and retries.
_datasources_opts: list[cfg.Opt] = [
    _datasources_opt(
        list(datasources.UPSTREAM_DEFAULT),
        "Datasources metric strategies read measured load from, in the order they are "
        "tried: the first that answers every metric the strategy needs and is reachable "
        "is used; none is a FAILED audit saying why. The default is upstream's, none of "
        "which is served here: list prometheus to run metric strategies." + _DATASOURCE_NAMES_HELP,
    ),
    cfg.IntOpt(
        "query_max_retries",
        default=10,
        min=1,
        mutable=True,
        help="Attempts per query while the datasource cannot be reached; a query the "
        "datasource refuses (an HTTP error, a bad query) is not retried.",
    ),
    cfg.IntOpt(
        "query_interval",
        default=1,
        min=0,
        mutable=True,
        deprecated_name="query_timeout",
        help="Seconds between two attempts of a query (not an HTTP timeout; upstream's "
        "older name query_timeout is read too).",
    ),
]

#: ``[prometheus_client]``: where the prometheus datasource is and how its series are labelled.
_prometheus_opts: list[cfg.Opt] = [
    cfg.StrOpt("host", help="Host or IP address of Prometheus. Unset: prometheus is passed over."),
    cfg.PortOpt("port", default=9090, help="Port of Prometheus's HTTP API."),
    cfg.StrOpt(
        "fqdn_label",
        default="fqdn",
        help="Label whose values name compute hosts, on the scrape targets and on the "
        "node exporter's series: a compute node's name (Nova's service host) is matched "
        "to a value equal to it, or to a value whose first DNS label it is.",
    ),
    cfg.StrOpt(
        "instance_uuid_label",
        default="resource",
        help="Label holding the instance uuid on Ceilometer's ceilometer_* series.",
    ),
    cfg.StrOpt("username", help="HTTP basic auth user (used when password is set too)."),
    cfg.StrOpt("password", secret=True, help="HTTP basic auth password."),
    cfg.StrOpt(
        "cafile",
        help="CA bundle verifying Prometheus's certificate. Setting it switches to https "
        "(as upstream does); unset, plain http is spoken.",
    ),
    cfg.StrOpt("certfile", help="Client certificate (used with keyfile, when cafile is set)."),
    cfg.StrOpt("keyfile", help="Client certificate's key (used with certfile and cafile)."),
]


def strategy_datasources_opts() -> list[cfg.Opt]:
    """``[watcher_strategies.<name>] datasources``: one strategy's own list."""
    return [
        _datasources_opt(
            None,
            "Datasources this strategy reads, in order, instead of [watcher_datasources] "
            "datasources (unset: that list)." + _DATASOURCE_NAMES_HELP,
        )
    ]


def strategy_group(strategy: str) -> str:
    """The option group of one strategy's own datasources."""
    return f"watcher_strategies.{strategy}"


#: Options upstream keeps in ``[DEFAULT]``.
DEFAULT_OPTS: list[cfg.Opt] = [
    cfg.IntOpt(
        "service_down_time",
        default=90,
        min=1,
        help="Seconds since its last heartbeat after which a service (an applier, an audit "
        "runner) is listed as FAILED by /v1/services. Services beat every third of this.",
    ),
]

#: Option groups of the subsystem, for ``placement.conf.GROUPS``.
GROUPS: dict[str, list[cfg.Opt]] = {
    PLANNER_GROUP: _planner_opts,
    WEIGHT_GROUP: _weight_opts,
    STABILIZATION_GROUP: _stabilization_opts,
    TASKFLOW_GROUP: _taskflow_opts,
    APPLIER_GROUP: _applier_opts,
    DECISION_ENGINE_GROUP: _expiry_opts + _audit_runner_opts,
    CLIENTS_AUTH_GROUP: _clients_auth_opts(),
    NOVA_CLIENT_GROUP: _nova_client_opts,
    DATASOURCES_GROUP: _datasources_opts,
    PROMETHEUS_GROUP: _prometheus_opts,
    **{
        strategy_group(strategy.name): strategy_datasources_opts()
        for strategy in STRATEGIES
        if strategy.measures is not None
    },
}


def planner_options(
    conf: cfg.ConfigOpts, action_types: ActionTypes = BUILTIN, executor: str | None = None
) -> PlannerOptions:
    """The planner options of a loaded configuration, as the pure planners take them.

    ``action_types`` are the declarations of the types ``executor`` performs
    (``[watcher_applier] executor``, named when an audit is refused); a dict option left
    unset is their declared defaults (for the built-in types alone, the option's
    own default), a configured one replaces them whole.
    """

    def weights(
        group: str, name: str, declared: Callable[[ActionTypes], dict[str, int]]
    ) -> dict[str, int]:
        set_where = conf.get_location(name, group)
        if set_where is None or set_where.location == cfg.Locations.opt_default:
            return declared(action_types)
        return dict(conf[group][name])

    return PlannerOptions(
        weight_weights=weights(WEIGHT_GROUP, "weights", options.weights),
        weight_parallelization=weights(WEIGHT_GROUP, "parallelization", options.parallelization),
        stabilization_weights=weights(
            STABILIZATION_GROUP, "weights", options.stabilization_weights
        ),
        default_planner=conf[PLANNER_GROUP].planner,
        action_types=action_types,
        executor=executor,
    )


def executor(conf: cfg.ConfigOpts) -> str:
    """The configured executor's name."""
    return str(conf[APPLIER_GROUP].executor)


def interface(conf: cfg.ConfigOpts) -> str:
    """``[nova_client] endpoint_type`` as keystoneauth names interfaces (``publicURL``
    is ``public``)."""
    value = str(conf[NOVA_CLIENT_GROUP].endpoint_type)
    return value[: -len("URL")] if value.endswith("URL") else value


def datasource_names(conf: cfg.ConfigOpts, strategy: str) -> list[str]:
    """The datasources ``strategy`` tries, in order: its own list when set, else the global one."""
    group = strategy_group(strategy)
    if group in conf and conf[group].datasources is not None:
        return list(conf[group].datasources)
    return list(conf[DATASOURCES_GROUP].datasources)
