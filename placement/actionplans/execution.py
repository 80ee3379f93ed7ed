"""The applier's scheduling rules, on a plan's actions as plain values (doc/planner.md §6).

An action may start once every parent has *finished*: SUCCEEDED or SKIPPED (a
skipped parent does not block its children). A FAILED action blocks its whole
subtree: unlike upstream, which runs the children anyway, every PENDING
descendant becomes CANCELLED with a message naming the failed action. A plan is
over when nothing is PENDING or ONGOING any more, and its final state follows
from its actions' (or is CANCELLED when the user cancelled it).

Everything here is pure: the runtime reads the actions, asks these functions
what to do, and records the answers with compare-and-swap writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from placement.actionplans import states

#: Parent states that let a child start.
FINISHED = frozenset({states.SUCCEEDED, states.SKIPPED})
#: States an action never leaves during execution.
FINAL = frozenset({states.SUCCEEDED, states.SKIPPED, states.FAILED, states.CANCELLED})

SOME_SKIPPED = "One or more actions were skipped."
SOME_FAILED = "One or more actions failed."


@dataclass(frozen=True)
class Step:
    """What scheduling needs of one action: its uuid, state and parents' uuids."""

    uuid: str
    state: str
    parents: tuple[str, ...] = ()


def parent_failed_message(parent_uuid: str) -> str:
    """status_message of an action cancelled because an ancestor failed."""
    return f"Action cancelled: its parent action {parent_uuid} failed."


def parent_cancelled_message(parent_uuid: str) -> str:
    """status_message of an action below one that was cancelled with no failure above it."""
    return f"Action cancelled: its parent action {parent_uuid} was cancelled."


def ready(steps: Iterable[Step]) -> list[str]:
    """PENDING actions whose parents have all finished, in the order given.

    A parent that is not in the plan (deleted) does not hold its children back.
    """
    steps = list(steps)
    state_of = {step.uuid: step.state for step in steps}
    return [
        step.uuid
        for step in steps
        if step.state == states.PENDING
        and all(state_of.get(parent, states.SUCCEEDED) in FINISHED for parent in step.parents)
    ]


class _Blame:
    """Why each action is blocked for good, worked out once per action."""

    def __init__(self, by_uuid: Mapping[str, Step]) -> None:
        self._by_uuid = by_uuid
        self._known: dict[str, str | None] = {}

    def of(self, uuid: str) -> str | None:
        """The message naming what blocks ``uuid`` for good (its first blocking parent)."""
        if uuid in self._known:
            return self._known[uuid]
        self._known[uuid] = None  # guards against a cycle in bad data
        reasons = (self._through(parent) for parent in self._by_uuid[uuid].parents)
        found = next((reason for reason in reasons if reason is not None), None)
        self._known[uuid] = found
        return found

    def _through(self, parent: str) -> str | None:
        """What ``parent`` passes down to its children: a failure, a cancel, or nothing."""
        step = self._by_uuid.get(parent)
        if step is None:
            return None
        if step.state == states.FAILED:
            return parent_failed_message(parent)
        if step.state not in (states.PENDING, states.CANCELLED):
            return None
        found = self.of(parent)
        if found is None and step.state == states.CANCELLED:
            return parent_cancelled_message(parent)
        return found


def cancelled_by_failure(steps: Iterable[Step]) -> dict[str, str]:
    """PENDING actions that can never run -> the status message naming why.

    Below a FAILED action: the message names the failed action (the first
    failed parent in ``parents`` order, or the failure a cancelled parent
    stems from). Below a CANCELLED action with no failure above it (data from
    elsewhere): the message names that action, so no plan waits forever.
    """
    by_uuid = {step.uuid: step for step in steps}
    blame = _Blame(by_uuid)
    cancelled: dict[str, str] = {}
    for uuid, step in by_uuid.items():
        message = blame.of(uuid) if step.state == states.PENDING else None
        if message is not None:
            cancelled[uuid] = message
    return cancelled


def pending(steps: Iterable[Step]) -> list[str]:
    """The PENDING actions (what a cancel turns CANCELLED)."""
    return [step.uuid for step in steps if step.state == states.PENDING]


@dataclass(frozen=True)
class PlanOutcome:
    """A finished plan's final state and status message."""

    state: str
    message: str | None = None


def plan_outcome(steps: Iterable[Step], cancelling: bool = False) -> PlanOutcome | None:
    """The plan's final state once no action is PENDING or ONGOING, else None.

    CANCELLED after a cancel; FAILED when any action failed; otherwise
    SUCCEEDED, saying so when any action was skipped.
    """
    found = {step.state for step in steps}
    if found - FINAL:
        return None
    if cancelling:
        return PlanOutcome(states.CANCELLED)
    if states.FAILED in found:
        return PlanOutcome(states.FAILED, SOME_FAILED)
    if states.SKIPPED in found:
        return PlanOutcome(states.SUCCEEDED, SOME_SKIPPED)
    return PlanOutcome(states.SUCCEEDED)


def apply(steps: Iterable[Step], changes: Mapping[str, str]) -> list[Step]:
    """``steps`` with the states in ``changes`` (uuid -> new state) applied."""
    return [
        Step(step.uuid, changes[step.uuid], step.parents) if step.uuid in changes else step
        for step in steps
    ]
