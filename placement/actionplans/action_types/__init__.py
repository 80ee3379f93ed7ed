"""The action types a plan may hold, with the schema of their ``input_parameters``.

Schemas are upstream's (PLANNER.md section 5) with its lower-case ``minlength`` /
``anyof`` / ``'None'`` typos fixed, so those constraints are really enforced. Actions
are validated when the plan is created, and an error names the action's index and the
field, e.g. ``actions[2].input_parameters.duration: -1 is less than the minimum of 0``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from jsonschema import Draft4Validator, ValidationError

from placement.actionplans.errors import InvalidActionParameters, UnknownActionType
from placement.actionplans.model import ProposedAction

#: What ``resource_id`` names for a type.
CONSUMER = "consumer"
PROVIDER = "provider"

_UUID = {
    "type": "string",
    "minLength": 1,
    "pattern": "^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$",
}
_NAME = {"type": "string", "minLength": 1}
_OPTIONAL_NAME = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]}
_FLAG = {"type": "boolean", "default": False}


@dataclass(frozen=True)
class ActionType:
    """An action type: its input schema and what its ``resource_id`` designates."""

    name: str
    input_schema: dict[str, Any]
    resource_kind: str | None

    def errors(self, input_parameters: Any) -> list[ValidationError]:
        """Every schema violation of ``input_parameters``, in the validator's order."""
        return list(Draft4Validator(self.input_schema).iter_errors(input_parameters))


def _object(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_TYPES = (
    ActionType(
        "migrate",
        _object(
            ["migration_type", "resource_id", "source_node"],
            resource_id=_UUID,
            resource_name=_NAME,
            migration_type={"type": "string", "enum": ["live", "cold"]},
            source_node=_NAME,
            destination_node=_OPTIONAL_NAME,
        ),
        CONSUMER,
    ),
    ActionType(
        "resize", _object(["resource_id", "flavor"], resource_id=_UUID, flavor=_NAME), CONSUMER
    ),
    ActionType(
        "change_nova_service_state",
        _object(
            ["resource_id", "state"],
            resource_id=_NAME,
            resource_name=_NAME,
            state={"type": "string", "enum": ["up", "down", "enabled", "disabled"]},
            disabled_reason=_NAME,
        ),
        PROVIDER,
    ),
    ActionType(
        "change_node_power_state",
        _object(
            ["resource_id", "state"],
            resource_id=_NAME,
            resource_name=_NAME,
            state={"type": "string", "enum": ["on", "off"]},
        ),
        PROVIDER,
    ),
    ActionType("turn_host_to_acpi_s3_state", _object(["resource_id"], resource_id=_NAME), PROVIDER),
    ActionType("sleep", _object(["duration"], duration={"type": "number", "minimum": 0}), None),
    ActionType(
        "nop",
        _object(
            ["message"],
            message={"type": ["string", "null"]},
            skip_pre_condition=_FLAG,
            fail_pre_condition=_FLAG,
            fail_execute=_FLAG,
            fail_post_condition=_FLAG,
        ),
        None,
    ),
    ActionType(
        "volume_migrate",
        _object(
            ["resource_id", "migration_type"],
            resource_id=_UUID,
            resource_name=_NAME,
            migration_type={"type": "string", "enum": ["swap", "retype", "migrate"]},
            destination_node=_OPTIONAL_NAME,
            destination_type=_OPTIONAL_NAME,
        ),
        CONSUMER,
    ),
    ActionType("shelve", _object(["resource_id"], resource_id=_UUID), CONSUMER),
    ActionType("stop", _object(["resource_id"], resource_id=_UUID), CONSUMER),
    ActionType("delete", _object(["resource_id"], resource_id=_UUID), CONSUMER),
)

KNOWN_TYPES: dict[str, ActionType] = {action_type.name: action_type for action_type in _TYPES}


def _field(error: ValidationError) -> str:
    """The dotted path of the offending value, below ``input_parameters``.

    A missing required key or an unexpected extra key is named itself, not its parent
    object, so the message points at what to add or remove.
    """
    path = ["input_parameters"]
    path.extend(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )
    if error.validator == "required":
        required: list[str] = list(cast(list, error.validator_value))
        present = cast(dict, error.instance)
        missing = [name for name in required if name not in present]
        path.append(f".{missing[0]}")
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        extra = sorted(key for key in error.instance if key not in schema.get("properties", {}))
        path.append(f".{extra[0]}")
    return "".join(path)


def validate_actions(
    actions: Sequence[ProposedAction], installed: Mapping[str, dict[str, Any]] | None = None
) -> None:
    """Refuse the first action whose type is unknown or whose parameters break its schema.

    ``installed`` maps the action types installed through entry points to their
    input schemas: a plugin's type is known by its own schema, and one that
    replaces a built-in type brings its schema along.
    """
    for index, action in enumerate(actions):
        action_type = KNOWN_TYPES.get(action.action_type)
        if installed is not None and action.action_type in installed:
            schema = installed[action.action_type]
            resource_kind = action_type.resource_kind if action_type else None
            action_type = ActionType(action.action_type, schema, resource_kind)
        if action_type is None:
            raise UnknownActionType(index, action.action_type)
        errors = action_type.errors(action.input_parameters)
        if errors:
            raise InvalidActionParameters(index, _field(errors[0]), errors[0].message)
