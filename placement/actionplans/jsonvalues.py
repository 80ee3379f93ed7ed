"""JSON values as hashable keys: equal keys exactly when the JSON values are equal.

JSON has one number type, so ``1`` and ``1.0`` are the same value, while ``true`` is
not ``1`` (Python's ``==`` equates both pairs). Keys make duplicate detection a set
lookup instead of a comparison with every earlier action.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any


def json_key(value: Any) -> Hashable:
    """A hashable stand-in for ``value`` that follows JSON's notion of equality."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, float) and value.is_integer():
        return ("number", int(value))
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, dict):
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return ("array", tuple(json_key(item) for item in value))
    raise TypeError(f"not a JSON value: {value!r}")


def json_equal(left: Any, right: Any) -> bool:
    """True when both values denote the same JSON value."""
    return json_key(left) == json_key(right)
