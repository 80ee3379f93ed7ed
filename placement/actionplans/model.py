"""The values that travel between strategies, planners and storage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ProposedAction:
    """One element of a strategy's solution, before any planner has seen it."""

    action_type: str
    input_parameters: dict[str, Any]

    @property
    def resource_id(self) -> str | None:
        """What the action acts on (consumer or provider), when it names one."""
        value = self.input_parameters.get("resource_id")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class PlannedAction:
    """A solution's action with the indices of the actions it must wait for."""

    index: int
    action: ProposedAction
    parents: tuple[int, ...]


@dataclass(frozen=True)
class Plan:
    """A planner's output: every action of the solution, in plan order."""

    actions: tuple[PlannedAction, ...]

    def parents_by_index(self) -> dict[int, tuple[int, ...]]:
        """Each solution index mapped to its parents (handy for storage and tests)."""
        return {planned.index: planned.parents for planned in self.actions}

    def order(self) -> list[int]:
        """The solution indices in plan order."""
        return [planned.index for planned in self.actions]
