"""The shape shared by the built-in action types that work inside the applier's transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import BUILTIN
from placement.effects.base import Outcome, RunEnv

Run = Callable[[Connection, dict[str, Any], RunEnv], Outcome]


class BuiltinType:
    """A built-in action type (its declaration taken from the pure layer's table by
    name), whose effect runs in the transaction the applier gives it."""

    blocking = False

    def __init__(self, name: str, run: Run) -> None:
        self.declaration = BUILTIN[name]
        self._run = run

    def run(self, conn: Connection | None, params: dict[str, Any], env: RunEnv) -> Outcome:
        if conn is None:
            raise TypeError(f"action type {self.declaration.name} runs inside a transaction")
        return self._run(conn, params, env)
