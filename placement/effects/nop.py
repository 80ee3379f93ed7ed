"""``nop``: does nothing, or skips or fails where its switches say (for testing plans)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.effects import base
from placement.effects.builtin import BuiltinType


def nop(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Nothing, or the skip or failure its switches ask for (first one set wins)."""
    if params.get("skip_pre_condition"):
        return base.skipped("Skipped in pre_condition")
    if params.get("fail_pre_condition"):
        return base.failed_pre_condition("Failed in pre_condition")
    if params.get("fail_execute"):
        return base.failed_execute("Failed in execute")
    if params.get("fail_post_condition"):
        return base.failed_post_condition("Failed in post_condition")
    return base.succeeded()


NOP = BuiltinType(names.NOP, nop)
