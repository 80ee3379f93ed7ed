"""Small constructors of proposed actions, so tests read like the examples they encode."""

from __future__ import annotations

from placement.actionplans.action_types import names
from placement.actionplans.model import Plan, ProposedAction


def migrate(instance: str, source: str, destination: str | None = None) -> ProposedAction:
    params = {"resource_id": instance, "migration_type": "live", "source_node": source}
    if destination is not None:
        params["destination_node"] = destination
    return ProposedAction(names.MIGRATE, params)


def resize(instance: str, flavor: str = "m1.large") -> ProposedAction:
    return ProposedAction(names.RESIZE, {"resource_id": instance, "flavor": flavor})


def service_state(host: str, state: str) -> ProposedAction:
    return ProposedAction(names.CHANGE_NOVA_SERVICE_STATE, {"resource_id": host, "state": state})


def power_down(host: str) -> ProposedAction:
    return ProposedAction(names.TURN_HOST_TO_ACPI_S3_STATE, {"resource_id": host})


def sleep(duration: float = 1) -> ProposedAction:
    return ProposedAction(names.SLEEP, {"duration": duration})


def nop(message: str | None = "hi") -> ProposedAction:
    return ProposedAction(names.NOP, {"message": message})


def of_type(action_type: str, n: int) -> list[ProposedAction]:
    """``n`` distinct actions of one type (their parameters differ, so none is a duplicate)."""
    return [ProposedAction(action_type, {"n": i}) for i in range(n)]


def parents(plan: Plan) -> dict[int, list[int]]:
    """Each solution index mapped to its parents as a list (easy to compare with literals)."""
    return {index: list(found) for index, found in plan.parents_by_index().items()}
