"""Options of the action-plan subsystem, in upstream Watcher's groups.

``placement.conf`` registers these groups beside Placement's own, so they are
validated at start-up and listed in the sample config. Weights and parallelizations
are ``type:value`` dicts with integer values: unlike upstream, which keeps the
strings and sorts them as text, a non-integer stops start-up naming the option.
The defaults are the built-in action types' declarations; an installed plugin's
type adds its own declared defaults while an option is left unset.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from oslo_config import cfg, types

from placement.actionplans.action_types import BUILTIN
from placement.actionplans.planners import PLANNERS, PlannerOptions, options
from placement.actionplans.planners.options import (
    DEFAULT_PARALLELIZATION,
    DEFAULT_PLANNER,
    DEFAULT_STABILIZATION_WEIGHTS,
    DEFAULT_WEIGHTS,
    ActionTypes,
)

PLANNER_GROUP = "watcher_planner"
WEIGHT_GROUP = "watcher_planners.weight"
STABILIZATION_GROUP = "watcher_planners.workload_stabilization"
TASKFLOW_GROUP = "watcher_workflow_engines.taskflow"


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

#: Option groups of the subsystem, for ``placement.conf.GROUPS``.
GROUPS: dict[str, list[cfg.Opt]] = {
    PLANNER_GROUP: _planner_opts,
    WEIGHT_GROUP: _weight_opts,
    STABILIZATION_GROUP: _stabilization_opts,
    TASKFLOW_GROUP: _taskflow_opts,
}


def planner_options(conf: cfg.ConfigOpts, action_types: ActionTypes = BUILTIN) -> PlannerOptions:
    """The planner options of a loaded configuration, as the pure planners take them.

    ``action_types`` are the installed types' declarations; a dict option left
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
    )
