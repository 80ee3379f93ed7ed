"""Typed domain errors of the action-plan subsystem.

They know nothing of HTTP. Three families tell the HTTP layer what kind of failure it is:
:class:`Invalid` (the request is wrong, upstream answers 400), :class:`NotFound` (404)
and :class:`Conflict` (409). ``str(exc)`` is the message upstream Watcher shows for the
same case, so handlers can put it in the error body unchanged. Each error declares its
facts and its message template (see :class:`placement.domain_errors.DomainError`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from placement.domain_errors import DomainError


class ActionPlanError(DomainError):
    """Base of every error of this package; ``str()`` is the user-facing message."""


class Invalid(ActionPlanError):
    """The request asks for something that cannot be done (upstream: 400)."""


class NotFound(ActionPlanError):
    """A goal, strategy, audit, plan or action that does not exist (upstream: 404)."""

    facts = ("kind", "ident")
    template = "{kind} {ident} could not be found"
    kind: str
    ident: str


class Conflict(ActionPlanError):
    """The object exists but its state forbids the change (upstream: 409)."""


class UnknownPlanner(Invalid):
    """A planner name that is not one of ours."""

    facts = ("name", "known")
    template = "Planner {name} could not be found (known planners: {choices})"
    name: str
    known: Iterable[str]

    @property
    def choices(self) -> str:
        return ", ".join(sorted(self.known))


class UnsupportedActionType(Invalid):
    """The chosen planner cannot place this action type (upstream's wording)."""

    facts = ("index", "action_type", "planner")
    template = (
        "actions[{index}].action_type: Provided {action_type} is not supported "
        "yet by the {planner} planner"
    )
    index: int
    action_type: str
    planner: str


class UnknownActionType(Invalid):
    """An action type that no action of this service implements."""

    facts = ("index", "action_type")
    template = "actions[{index}].action_type: unknown action type {action_type!r}"
    index: int
    action_type: str


class NotPerformable(Invalid):
    """A type this service knows that the configured executor cannot perform
    (``change_node_power_state`` under ``nova``, say)."""

    facts = ("index", "action_type", "executor")
    template = (
        "actions[{index}].action_type: action type {action_type!r} cannot be performed "
        "by the {executor} executor ([watcher_applier] executor)"
    )
    index: int
    action_type: str
    executor: str


class InvalidActionParameters(Invalid):
    """An action's ``input_parameters`` break its type's schema."""

    facts = ("index", "field", "detail")
    template = "actions[{index}].{field}: {detail}"
    index: int
    field: str
    detail: str


class ReservedWord(Invalid):
    """An actuator item put ``resource_id`` inside ``input_parameters`` itself."""

    facts = ("index", "name")
    template = (
        "actions[{index}].input_parameters.{name}: The identifier '{name}' is a reserved word"
    )
    index: int
    name: str


class InvalidAuditParameters(Invalid):
    """Audit parameters refused by the strategy's ``parameters_spec``."""


class AuditParameterNotAllowed(InvalidAuditParameters):
    """A parameter key the strategy's schema does not list."""

    facts = ("parameter",)
    template = "Audit parameter {parameter} are not allowed"
    parameter: str


class InvalidState(Invalid):
    """A state name that does not exist for the object."""

    facts = ("state",)
    template = "Invalid state: {state}"
    state: Any


class _TransitionRefused(ActionPlanError):
    """The words of every refused state change; the family comes from the subclass."""

    facts = ("old", "new")
    template = "State transition not allowed: ({old} -> {new})"
    old: str
    new: str


class StateTransitionNotAllowed(_TransitionRefused, Invalid):
    """A plan or audit state change the API refuses."""


class ActionTransitionNotAllowed(_TransitionRefused, Conflict):
    """An action state change the API refuses (same words, but upstream answers 409)."""


class PlanStateForbidsActionUpdate(Conflict):
    """An action may be skipped only while its plan has not started."""

    facts = ("plan_state",)
    template = "State update not allowed for actionplan state: {plan_state}"
    plan_state: str


class StatusMessageUpdateNotAllowed(Conflict):
    """``status_message`` may be set by a user only on a SKIPPED action."""

    facts = ()
    template = "status_message update only allowed when action state is SKIPPED"


class DeleteError(Invalid):
    """Deleting a plan or audit in a state that forbids it."""

    facts = ("state",)
    template = "Couldn't delete when state is '{state}'."
    state: str


class StartError(Invalid):
    """Starting a plan that is not RECOMMENDED (also the loser of a concurrent start)."""

    facts = ("state",)
    template = "Couldn't start when state is '{state}'."
    state: str


class ConsumerHasNoAllocations(Invalid):
    """A planner needs an instance's current host, but the consumer holds nothing."""

    facts = ("resource_id",)
    template = (
        "The instance '{resource_id}' could not be found: "
        "the consumer holds no allocations, so it has no current host"
    )
    resource_id: str


class StrategyNotRunnable(Invalid):
    """A strategy that reads capacity, asked to solve without a capacity snapshot."""

    facts = ("name",)
    template = "Strategy {name} cannot run in this service yet"
    name: str


class NodeNotFound(Invalid):
    """A strategy parameter names a compute node that does not exist."""

    facts = ("name",)
    template = "The compute node {name} could not be found"
    name: str


class ConsumersCannotBePlaced(Invalid):
    """A strategy must move consumers that no enabled node has room for; no plan is made."""

    facts = ("node", "consumers")
    template = "No enabled node has room for the consumers of {node}: {listed}"
    node: str
    consumers: tuple[str, ...]

    def __init__(self, node: str, consumers: Iterable[str]) -> None:
        super().__init__(node, tuple(consumers))

    @property
    def listed(self) -> str:
        return ", ".join(self.consumers)


class InvalidFeatures(Invalid):
    """A scoring engine's features are not what it reads (the reason is the message)."""


class InvalidInterval(Invalid):
    """An audit ``interval`` that is neither a positive number of seconds nor a cron
    expression of 5 to 7 fields (upstream answers a bad cron with a 500)."""

    facts = ("value", "reason")
    template = "Provided cron is invalid: {reason}"
    value: Any
    reason: str


class InvalidSeconds(InvalidInterval):
    """An ``interval`` in seconds that is zero or negative (upstream stores it and fails later)."""

    template = "Interval of audit must be a positive number of seconds, not {value}"


class InvalidTime(Invalid):
    """An audit ``start_time`` or ``end_time`` that is not an ISO 8601 date and time."""

    facts = ("field", "value")
    template = "Invalid input for field/attribute {field}. Value: '{value}'. Not a date and time."
    field: str
    value: Any


class EndBeforeStart(Invalid):
    """An audit whose ``end_time`` is before its ``start_time``."""

    facts = ("start", "end")
    template = "The end time of an audit ({end}) must not be before its start time ({start})"
    start: Any
    end: Any


class ActionPlanIsOngoing(Conflict):
    """The force guard: an audit without ``force`` is not planned while a plan runs."""

    facts = ("action_plan",)
    template = "Action Plan {action_plan} is currently running."
    action_plan: str


class InvalidGoal(Invalid):
    """An audit template naming a goal that does not exist (upstream: 400, not 404)."""

    facts = ("goal",)
    template = "Goal {goal} is invalid"
    goal: str


class InvalidStrategy(Invalid):
    """An audit template naming a strategy that does not exist."""

    facts = ("strategy",)
    template = "Strategy {strategy} is invalid"
    strategy: str


class StrategyNotOfGoal(Invalid):
    """An audit template whose strategy serves another goal than the template's."""

    facts = ("strategy", "goal", "choices")
    template = (
        "'{strategy}' strategy does not relate to the '{goal}' goal. Possible choices: {choices}"
    )
    strategy: str
    goal: str
    choices: str


class DefaultParametersNeedStrategy(Invalid):
    """Default parameters on an audit template that names no strategy to check them."""

    facts = ()
    template = "default_parameters requires a strategy to be specified"


class DefaultParametersOutdated(Conflict):
    """A template's goal or strategy changed without new default parameters (upstream: 409)."""

    facts = ()
    template = (
        "Updating goal or strategy on a template that has default_parameters requires "
        "providing updated default_parameters in the same request"
    )


class TemplateNameTaken(Conflict):
    """A live audit template already has this name."""

    facts = ("name",)
    template = "An audit_template with UUID or name {name} already exists"
    name: str


class UnknownTemplate(Invalid):
    """``audit_template_uuid`` in an audit's body names no live template (upstream: 400)."""

    facts = ()
    template = "The audit template UUID or name specified is invalid"


class AuditTypeNotAllowed(Invalid):
    """A webhook for an audit that is not an EVENT audit."""

    facts = ("audit_type",)
    template = "Audit type {audit_type} is disallowed."
    audit_type: str


class AuditStateNotAllowed(Invalid):
    """A webhook for an EVENT audit that is neither PENDING nor SUCCEEDED."""

    facts = ("state",)
    template = "Audit state {state} is disallowed."
    state: str


class PatchRefused(Invalid):
    """A JSON-Patch operation on an audit that cannot be applied (the reason is the message)."""


class NoDatasource(ActionPlanError):
    """A strategy that reads measured load found no configured datasource that
    answers: the audit is stored FAILED with this message (upstream's
    ``NoDatasourceAvailable`` / ``MetricNotAvailable``), never planned on guesses."""

    facts = ("strategy", "reasons")
    template = "Strategy {strategy} reads measured load, but no datasource answers: {listed}"
    strategy: str
    reasons: tuple[str, ...]

    def __init__(self, strategy: str, reasons: Iterable[str]) -> None:
        super().__init__(strategy, tuple(reasons))

    @property
    def listed(self) -> str:
        return "; ".join(self.reasons) or "none is configured ([watcher_datasources] datasources)"


class NoDatasourceConfigured(NoDatasource):
    """No datasource the strategy could use is configured at all (none listed is served
    here with its options set), as opposed to one configured that does not answer.
    A strategy declaring ``measures_optional`` then solves without measurements."""


class CannotRunHere(ActionPlanError):
    """A strategy upstream serves that needs what this service has no way to give
    (a metric no datasource here answers, Cinder): an audit naming it is stored
    FAILED with this message, as upstream's goes FAILED with ``MetricNotAvailable``."""

    facts = ("strategy", "reason")
    template = "Strategy {strategy} cannot run in this service: {reason}"
    strategy: str
    reason: str
