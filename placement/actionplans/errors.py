"""Typed domain errors of the action-plan subsystem.

They know nothing of HTTP. Three families tell the HTTP layer what kind of failure it is:
:class:`Invalid` (the request is wrong, upstream answers 400), :class:`NotFound` (404)
and :class:`Conflict` (409). ``str(exc)`` is the message upstream Watcher shows for the
same case, so handlers can put it in the error body unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable


class ActionPlanError(Exception):
    """Base of every error of this package; ``str()`` is the user-facing message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class Invalid(ActionPlanError):
    """The request asks for something that cannot be done (upstream: 400)."""


class NotFound(ActionPlanError):
    """A goal, strategy, audit, plan or action that does not exist (upstream: 404)."""

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(f"{kind} {ident} could not be found")
        self.kind = kind
        self.ident = ident


class Conflict(ActionPlanError):
    """The object exists but its state forbids the change (upstream: 409)."""


class UnknownPlanner(Invalid):
    """A planner name that is not one of ours."""

    def __init__(self, name: str, known: Iterable[str]) -> None:
        choices = ", ".join(sorted(known))
        super().__init__(f"Planner {name} could not be found (known planners: {choices})")
        self.name = name


class UnsupportedActionType(Invalid):
    """The chosen planner cannot place this action type (upstream's wording)."""

    def __init__(self, index: int, action_type: str, planner: str) -> None:
        super().__init__(
            f"actions[{index}].action_type: Provided {action_type} is not supported "
            f"yet by the {planner} planner"
        )
        self.index = index
        self.action_type = action_type
        self.planner = planner


class UnknownActionType(Invalid):
    """An action type that no action of this service implements."""

    def __init__(self, index: int, action_type: str) -> None:
        super().__init__(f"actions[{index}].action_type: unknown action type {action_type!r}")
        self.index = index
        self.action_type = action_type


class InvalidActionParameters(Invalid):
    """An action's ``input_parameters`` break its type's schema."""

    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(f"actions[{index}].{field}: {message}")
        self.index = index
        self.field = field
        self.detail = message


class ReservedWord(Invalid):
    """An actuator item put ``resource_id`` inside ``input_parameters`` itself."""

    def __init__(self, index: int, name: str) -> None:
        super().__init__(
            f"actions[{index}].input_parameters.{name}: The identifier '{name}' is a reserved word"
        )
        self.index = index
        self.name = name


class InvalidAuditParameters(Invalid):
    """Audit parameters refused by the strategy's ``parameters_spec``."""


class AuditParameterNotAllowed(InvalidAuditParameters):
    """A parameter key the strategy's schema does not list."""

    def __init__(self, parameter: str) -> None:
        super().__init__(f"Audit parameter {parameter} are not allowed")
        self.parameter = parameter


class InvalidState(Invalid):
    """A state name that does not exist for the object."""

    def __init__(self, state: object) -> None:
        super().__init__(f"Invalid state: {state}")
        self.state = state


class _TransitionRefused(ActionPlanError):
    """The words of every refused state change; the family comes from the subclass."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__(f"State transition not allowed: ({old} -> {new})")
        self.old = old
        self.new = new


class StateTransitionNotAllowed(_TransitionRefused, Invalid):
    """A plan or audit state change the API refuses."""


class ActionTransitionNotAllowed(_TransitionRefused, Conflict):
    """An action state change the API refuses (same words, but upstream answers 409)."""


class PlanStateForbidsActionUpdate(Conflict):
    """An action may be skipped only while its plan has not started."""

    def __init__(self, plan_state: str) -> None:
        super().__init__(f"State update not allowed for actionplan state: {plan_state}")
        self.plan_state = plan_state


class StatusMessageUpdateNotAllowed(Conflict):
    """``status_message`` may be set by a user only on a SKIPPED action."""

    def __init__(self) -> None:
        super().__init__("status_message update only allowed when action state is SKIPPED")


class DeleteError(Invalid):
    """Deleting a plan or audit in a state that forbids it."""

    def __init__(self, state: str) -> None:
        super().__init__(f"Couldn't delete when state is '{state}'.")
        self.state = state


class StartError(Invalid):
    """Starting a plan that is not RECOMMENDED (also the loser of a concurrent start)."""

    def __init__(self, state: str) -> None:
        super().__init__(f"Couldn't start when state is '{state}'.")
        self.state = state


class ConsumerHasNoAllocations(Invalid):
    """A planner needs an instance's current host, but the consumer holds nothing."""

    def __init__(self, resource_id: str) -> None:
        super().__init__(
            f"The instance '{resource_id}' could not be found: "
            "the consumer holds no allocations, so it has no current host"
        )
        self.resource_id = resource_id


class StrategyNotRunnable(Invalid):
    """A catalog strategy whose algorithm this service does not run yet."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Strategy {name} cannot run in this service yet")
        self.name = name


class NodeNotFound(Invalid):
    """A strategy parameter names a compute node that does not exist."""

    def __init__(self, name: str) -> None:
        super().__init__(f"The compute node {name} could not be found")
        self.name = name


class ConsumersCannotBePlaced(Invalid):
    """A strategy must move consumers that no enabled node has room for; no plan is made."""

    def __init__(self, node: str, consumers: Iterable[str]) -> None:
        self.consumers = tuple(consumers)
        super().__init__(
            f"No enabled node has room for the consumers of {node}: " + ", ".join(self.consumers)
        )
        self.node = node
