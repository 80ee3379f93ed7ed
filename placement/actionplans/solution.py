"""A strategy's output: the ordered actions, efficacy, and the planner it asks for."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from placement.actionplans.action_types.names import CHANGE_NOVA_SERVICE_STATE, MIGRATE
from placement.actionplans.jsonvalues import json_key
from placement.actionplans.model import ProposedAction

if TYPE_CHECKING:
    from placement.actionplans.planners import Planner


class Solution:
    """Actions in the order the strategy proposed them, exact duplicates dropped.

    A duplicate is an action of the same type whose parameters are equal as JSON
    values; the first one stays, so planners see each distinct action once.
    ``planner`` is the planner the strategy insists on, or None to let the
    configuration decide (doc/planner.md §4); a strategy whose parameters shape the
    plan passes a planner made for it instead of a name. ``parameters`` are the ones the
    strategy ran with, its defaults filled in (``solve`` sets them). ``notes`` say, in
    words, what the strategy left out and why (a metric strategy's unmeasured nodes and
    servers: never planned on invented numbers), each once, in the order found.
    """

    def __init__(self, planner: str | Planner | None = None) -> None:
        self.actions: list[ProposedAction] = []
        self.efficacy_indicators: list[dict[str, Any]] = []
        self.global_efficacy: list[dict[str, Any]] = []
        self.planner = planner
        self.parameters: dict[str, Any] = {}
        self.notes: list[str] = []
        self._seen: set[tuple[str, Hashable]] = set()

    def add(self, action_type: str, input_parameters: dict[str, Any]) -> None:
        """Append an action unless an equal one is already there."""
        key = (action_type, json_key(input_parameters))
        if key not in self._seen:
            self._seen.add(key)
            self.actions.append(ProposedAction(action_type, dict(input_parameters)))

    def note(self, text: str) -> None:
        """Record ``text`` among the notes unless it is there already."""
        if text not in self.notes:
            self.notes.append(text)

    def add_service_state(
        self, name: str, uuid: str, state: str, disabled_reason: str | None = None
    ) -> None:
        """Append a ``change_nova_service_state`` of node ``name`` (root ``uuid``) to
        ``state``; ``disabled_reason`` goes with a disabling."""
        params: dict[str, Any] = {"state": state, "resource_name": name, "resource_id": uuid}
        if disabled_reason is not None:
            params["disabled_reason"] = disabled_reason
        self.add(CHANGE_NOVA_SERVICE_STATE, params)

    def add_migration(
        self, consumer: str, source: str, destination: str, migration_type: str = "live"
    ) -> None:
        """Append a ``migrate`` of ``consumer`` from node ``source`` to ``destination``."""
        self.add(
            MIGRATE,
            {
                "migration_type": migration_type,
                "source_node": source,
                "destination_node": destination,
                "resource_id": consumer,
            },
        )
