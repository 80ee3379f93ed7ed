"""The built-in action types, one declaration each.

Schemas are upstream's (doc/planner.md §5) with its lower-case ``minlength`` /
``anyof`` / ``'None'`` typos fixed, so those constraints are really enforced. The
weights and parallelizations are upstream's defaults (doc/planner.md §1 and §2):
``[watcher_planners.*]`` options take their defaults from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from placement.actionplans.action_types import names
from placement.actionplans.action_types.declaration import (
    CONSUMER,
    PROVIDER,
    ActionTypeDeclaration,
)

_UUID = {
    "type": "string",
    "minLength": 1,
    "pattern": "^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$",
}
_NAME = {"type": "string", "minLength": 1}
_OPTIONAL_NAME = {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]}
_FLAG = {"type": "boolean", "default": False}


def _object(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _on_consumer(name: str, weight: int) -> ActionTypeDeclaration:
    """A type whose only parameter is the instance it acts on."""
    return ActionTypeDeclaration(
        name, _object(["resource_id"], resource_id=_UUID), weight, 2, CONSUMER
    )


_DECLARATIONS = (
    ActionTypeDeclaration(
        names.MIGRATE,
        _object(
            ["migration_type", "resource_id", "source_node"],
            resource_id=_UUID,
            resource_name=_NAME,
            migration_type={"type": "string", "enum": ["live", "cold"]},
            source_node=_NAME,
            destination_node=_OPTIONAL_NAME,
        ),
        weight=30,
        parallelization=2,
        resource_kind=CONSUMER,
        stabilization_weight=2,
    ),
    ActionTypeDeclaration(
        names.RESIZE,
        _object(["resource_id", "flavor"], resource_id=_UUID, flavor=_NAME),
        weight=20,
        parallelization=2,
        resource_kind=CONSUMER,
        stabilization_weight=1,
    ),
    ActionTypeDeclaration(
        names.CHANGE_NOVA_SERVICE_STATE,
        _object(
            ["resource_id", "state"],
            resource_id=_NAME,
            resource_name=_NAME,
            state={"type": "string", "enum": ["up", "down", "enabled", "disabled"]},
            disabled_reason=_NAME,
        ),
        weight=50,
        parallelization=1,
        resource_kind=PROVIDER,
        stabilization_weight=4,
    ),
    ActionTypeDeclaration(
        names.CHANGE_NODE_POWER_STATE,
        _object(
            ["resource_id", "state"],
            resource_id=_NAME,
            resource_name=_NAME,
            state={"type": "string", "enum": ["on", "off"]},
        ),
        weight=9,
        parallelization=2,
        resource_kind=PROVIDER,
    ),
    ActionTypeDeclaration(
        names.TURN_HOST_TO_ACPI_S3_STATE,
        _object(["resource_id"], resource_id=_NAME),
        weight=10,
        parallelization=2,
        resource_kind=PROVIDER,
        stabilization_weight=0,
    ),
    ActionTypeDeclaration(
        names.SLEEP,
        _object(["duration"], duration={"type": "number", "minimum": 0}),
        weight=40,
        parallelization=1,
        stabilization_weight=3,
    ),
    ActionTypeDeclaration(
        names.NOP,
        _object(
            ["message"],
            message={"type": ["string", "null"]},
            skip_pre_condition=_FLAG,
            fail_pre_condition=_FLAG,
            fail_execute=_FLAG,
            fail_post_condition=_FLAG,
        ),
        weight=70,
        parallelization=1,
        stabilization_weight=5,
    ),
    ActionTypeDeclaration(
        names.VOLUME_MIGRATE,
        _object(
            ["resource_id", "migration_type"],
            resource_id=_UUID,
            resource_name=_NAME,
            migration_type={"type": "string", "enum": ["swap", "retype", "migrate"]},
            destination_node=_OPTIONAL_NAME,
            destination_type=_OPTIONAL_NAME,
        ),
        weight=60,
        parallelization=2,
        resource_kind=CONSUMER,
    ),
    _on_consumer(names.SHELVE, weight=37),
    _on_consumer(names.STOP, weight=35),
    _on_consumer(names.DELETE, weight=33),
)

#: Every built-in declaration by name.
BUILTIN: Mapping[str, ActionTypeDeclaration] = MappingProxyType({d.name: d for d in _DECLARATIONS})
