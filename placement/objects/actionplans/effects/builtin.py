"""The shape shared by the built-in action types that work inside the applier's transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import KNOWN_TYPES
from placement.objects.actionplans.effects.base import Outcome, RunEnv

Effect = Callable[[Connection, dict[str, Any], RunEnv], Outcome]


class BuiltinType:
    """An action type named in the pure layer's catalog (whose schema it takes),
    whose effect runs in the transaction the applier gives it."""

    blocking = False

    def __init__(self, name: str, effect: Effect) -> None:
        self.name = name
        self.schema = KNOWN_TYPES[name].input_schema
        self._effect = effect

    def run(self, conn: Connection | None, params: dict[str, Any], env: RunEnv) -> Outcome:
        if conn is None:
            raise TypeError(f"action type {self.name} runs inside a transaction")
        return self._effect(conn, params, env)
