"""Action types for the applier's tests, registered like any third-party plugin.

This directory is put on ``PYTHONPATH`` of the applier processes the tests
start; its ``.dist-info`` declares the entry points. ``recorded`` writes one row
per run into ``applier_test_runs`` inside the action's transaction, so the rows
count the runs that committed; ``wait`` blocks outside any transaction until
its time is up or the plan is cancelled.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Column, Float, Integer, MetaData, String, Table, insert
from sqlalchemy.engine import Connection

from placement.actionplans import states
from placement.actionplans.action_types import ActionTypeDeclaration
from placement.effects import base

metadata = MetaData()

runs = Table(
    "applier_test_runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tag", String(64), nullable=False),
    Column("slept", Float, nullable=False),
)

_OUTCOMES = {
    "SUCCEEDED": base.succeeded,
    "SKIPPED": lambda: base.skipped("asked to skip"),
    "FAILED": lambda: base.failed_execute("asked to fail"),
}


class Recorded:
    """Writes a row tagged ``tag``, holds its transaction ``delay`` seconds, ends as asked."""

    declaration = ActionTypeDeclaration(
        "recorded", {"type": "object"}, weight=45, parallelization=4
    )

    def run(
        self, conn: Connection | None, params: dict[str, Any], env: base.RunEnv
    ) -> base.Outcome:
        assert conn is not None
        outcome = _OUTCOMES[params.get("outcome", "SUCCEEDED")]()
        if outcome.state == states.SUCCEEDED:
            conn.execute(insert(runs).values(tag=params["tag"], slept=params.get("delay", 0)))
        time.sleep(params.get("delay", 0))
        return outcome


class Wait:
    """Blocks ``seconds`` outside any transaction; a cancelled plan cuts it short."""

    declaration = ActionTypeDeclaration(
        "wait",
        {
            "type": "object",
            "properties": {"seconds": {"type": "number", "minimum": 0}},
            "required": ["seconds"],
            "additionalProperties": False,
        },
        weight=45,
        parallelization=1,
    )
    blocking = True

    def run(
        self, conn: Connection | None, params: dict[str, Any], env: base.RunEnv
    ) -> base.Outcome:
        if env.cancelled.wait(params["seconds"]):
            return base.cancelled()
        return base.succeeded()


RECORDED = Recorded()
WAIT = Wait()
