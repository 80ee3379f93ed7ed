"""Equality of JSON values, as JSON sees them (``1`` equals ``1.0``, ``true`` is not ``1``)."""

from __future__ import annotations

from typing import Any


def json_equal(left: Any, right: Any) -> bool:
    """True when both values denote the same JSON value.

    Python's ``==`` already equates ``1`` and ``1.0`` but also ``True`` and ``1``, which
    JSON keeps apart; containers are compared element by element with the same rule.
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(json_equal, left, right))
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    return type(left) is type(right) and left == right
