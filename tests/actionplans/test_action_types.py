"""Action types: upstream's input schemas, with its typos fixed, enforced at plan creation;
each built-in type's declared planner defaults are upstream's."""

from typing import Any

import pytest

from placement.actionplans.action_types import (
    BUILTIN,
    CONSUMER,
    PROVIDER,
    ActionTypeDeclaration,
    names,
    validate_actions,
)
from placement.actionplans.errors import InvalidActionParameters, UnknownActionType
from placement.actionplans.model import ProposedAction

UUID = "4f1bd0c8-7a51-4c25-9bd9-0e2f06a7b3c1"

VALID: dict[str, dict[str, Any]] = {
    "migrate": {
        "resource_id": UUID,
        "migration_type": "live",
        "source_node": "h1",
        "destination_node": None,
        "resource_name": "vm1",
    },
    "resize": {"resource_id": UUID, "flavor": "m1.small"},
    "change_nova_service_state": {
        "resource_id": "h1",
        "state": "disabled",
        "disabled_reason": "watcher_maintaining",
        "resource_name": "h1",
    },
    "change_node_power_state": {"resource_id": UUID, "state": "off", "resource_name": "h1"},
    "turn_host_to_acpi_s3_state": {"resource_id": "h1"},
    "sleep": {"duration": 0.5},
    "nop": {"message": None, "fail_execute": True, "skip_pre_condition": False},
    "volume_migrate": {"resource_id": UUID, "migration_type": "swap", "destination_type": "ssd"},
    "shelve": {"resource_id": UUID},
    "stop": {"resource_id": UUID},
    "delete": {"resource_id": UUID},
}


def _refusal(action_type, params, before=()):
    actions = [*before, ProposedAction(action_type, params)]
    with pytest.raises(InvalidActionParameters) as caught:
        validate_actions(actions)
    return caught.value


#: doc/planner.md §1 and §2: (weight, parallelization, workload_stabilization weight).
UPSTREAM_DEFAULTS = {
    "turn_host_to_acpi_s3_state": (10, 2, 0),
    "resize": (20, 2, 1),
    "migrate": (30, 2, 2),
    "sleep": (40, 1, 3),
    "change_nova_service_state": (50, 1, 4),
    "nop": (70, 1, 5),
    "change_node_power_state": (9, 2, None),
    "volume_migrate": (60, 2, None),
    "shelve": (37, 2, None),
    "stop": (35, 2, None),
    "delete": (33, 2, None),
}


def test_every_name_is_declared_once_under_its_own_name():
    declared = {
        value for key, value in vars(names).items() if key.isupper() and isinstance(value, str)
    }
    assert set(BUILTIN) == declared == set(VALID)
    assert all(declaration.name == name for name, declaration in BUILTIN.items())


def test_the_declared_planner_defaults_are_upstreams():
    assert {
        name: (d.weight, d.parallelization, d.stabilization_weight) for name, d in BUILTIN.items()
    } == UPSTREAM_DEFAULTS


def test_valid_parameters_of_every_type_pass():
    validate_actions([ProposedAction(name, params) for name, params in VALID.items()])


def test_resource_kinds():
    assert BUILTIN[names.MIGRATE].resource_kind == CONSUMER
    assert BUILTIN[names.CHANGE_NOVA_SERVICE_STATE].resource_kind == PROVIDER
    assert BUILTIN[names.SLEEP].resource_kind is None


def test_the_types_acting_on_an_instance_are_those_on_a_consumer():
    on_instance = {name for name, d in BUILTIN.items() if d.acts_on_instance}
    assert on_instance == {"migrate", "resize", "volume_migrate", "shelve", "stop", "delete"}


def test_the_error_names_the_index_and_the_field():
    error = _refusal(
        "sleep", {"duration": -1}, before=[ProposedAction("nop", {"message": "x"})] * 2
    )
    assert str(error) == "actions[2].input_parameters.duration: -1 is less than the minimum of 0"
    assert (error.index, error.field) == (2, "input_parameters.duration")


def test_a_missing_required_field_is_named():
    error = _refusal("migrate", {"resource_id": UUID, "migration_type": "live"})
    assert str(error) == (
        "actions[0].input_parameters.source_node: 'source_node' is a required property"
    )


def test_an_unexpected_field_is_named():
    error = _refusal("stop", {"resource_id": UUID, "force": True})
    assert error.field == "input_parameters.force"
    assert "'force' was unexpected" in str(error)


@pytest.mark.parametrize(
    "action_type, params, field",
    [
        # upstream's lower-case "minlength" let these through
        ("change_nova_service_state", {"resource_id": "", "state": "up"}, "resource_id"),
        ("migrate", {**VALID["migrate"], "resource_name": ""}, "resource_name"),
        # upstream's lower-case "anyof" let anything through
        ("migrate", {**VALID["migrate"], "destination_node": ""}, "destination_node"),
        ("migrate", {**VALID["migrate"], "destination_node": 5}, "destination_node"),
        ("volume_migrate", {**VALID["volume_migrate"], "destination_type": ""}, "destination_type"),
        # consumers are uuids; enums are closed
        ("resize", {"resource_id": "vm1", "flavor": "m1"}, "resource_id"),
        ("migrate", {**VALID["migrate"], "migration_type": "warp"}, "migration_type"),
        ("change_node_power_state", {"resource_id": "h1", "state": "sleepy"}, "state"),
        ("sleep", {"duration": "1"}, "duration"),
        ("nop", {"message": 3}, "message"),
        ("nop", {"message": "x", "fail_execute": "yes"}, "fail_execute"),
    ],
)
def test_schema_constraints_are_enforced(action_type, params, field):
    assert _refusal(action_type, params).field == f"input_parameters.{field}"


def test_parameters_that_are_not_an_object_are_refused():
    assert _refusal("sleep", [1]).field == "input_parameters"


def test_an_unknown_type_is_refused_with_its_index():
    with pytest.raises(UnknownActionType) as caught:
        validate_actions([ProposedAction("sleep", {"duration": 1}), ProposedAction("reboot", {})])
    assert (caught.value.index, caught.value.action_type) == (1, "reboot")
    assert str(caught.value) == "actions[1].action_type: unknown action type 'reboot'"


def test_an_installed_type_is_checked_by_its_own_schema():
    notify = ActionTypeDeclaration("notify", {"type": "object", "required": ["channel"]}, 45, 1)
    installed = {**BUILTIN, "notify": notify}
    validate_actions([ProposedAction("notify", {"channel": "ops"})], installed)
    with pytest.raises(InvalidActionParameters, match=r"^actions\[0\]\.input_parameters\.channel"):
        validate_actions([ProposedAction("notify", {})], installed)
    with pytest.raises(UnknownActionType):
        validate_actions([ProposedAction("notify", {"channel": "ops"})])


def test_an_installed_type_replacing_a_built_in_one_brings_its_own_schema():
    loose = ActionTypeDeclaration(names.SLEEP, {"type": "object"}, 40, 1)
    validate_actions([ProposedAction("sleep", {"duration": "soon"})], {names.SLEEP: loose})
    with pytest.raises(UnknownActionType):
        validate_actions([ProposedAction("nop", {"message": None})], {names.SLEEP: loose})
