"""The action types a plan may hold: their declarations, and the check of a plan's actions.

A type is one :class:`ActionTypeDeclaration` (``declaration.py``); the built-in
ones are in ``builtin.py``, named by the constants of ``names.py``. Actions are
validated when the plan is created, and an error names the action's index and the
field, e.g. ``actions[2].input_parameters.duration: -1 is less than the minimum of 0``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from jsonschema import ValidationError

from placement.actionplans.action_types.builtin import BUILTIN
from placement.actionplans.action_types.declaration import (
    CONSUMER,
    PROVIDER,
    ActionTypeDeclaration,
    ResourceKind,
)
from placement.actionplans.errors import (
    InvalidActionParameters,
    NotPerformable,
    UnknownActionType,
)
from placement.actionplans.model import ProposedAction

__all__ = [
    "BUILTIN",
    "CONSUMER",
    "PROVIDER",
    "ActionTypeDeclaration",
    "ResourceKind",
    "validate_actions",
]


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
    actions: Sequence[ProposedAction],
    installed: Mapping[str, ActionTypeDeclaration] = BUILTIN,
    executor: str | None = None,
) -> None:
    """Refuse the first action whose type is not installed or whose parameters break its schema.

    ``installed`` holds the declarations of the action types the configured
    ``executor`` performs (by default the built-in ones): a plugin's type is
    known by its own schema, and one that replaces a built-in type brings its own
    along. A built-in type missing from them is one the executor cannot perform,
    refused naming the executor; any other missing type is unknown.
    """
    for index, action in enumerate(actions):
        declaration = installed.get(action.action_type)
        if declaration is None and executor is not None and action.action_type in BUILTIN:
            raise NotPerformable(index, action.action_type, executor)
        if declaration is None:
            raise UnknownActionType(index, action.action_type)
        errors = declaration.errors(action.input_parameters)
        if errors:
            raise InvalidActionParameters(index, _field(errors[0]), errors[0].message)
