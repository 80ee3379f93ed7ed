"""``sleep``: wait ``duration`` seconds, outside any transaction, until cancelled."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import BUILTIN, names
from placement.effects import base


class Sleep:
    """The built-in ``sleep`` action type; a cancelled plan cuts the wait short."""

    declaration = BUILTIN[names.SLEEP]
    blocking = True

    def run(
        self, conn: Connection | None, params: dict[str, Any], env: base.RunEnv
    ) -> base.Outcome:
        if env.cancelled.wait(float(params["duration"])):
            return base.cancelled()
        return base.succeeded()


SLEEP = Sleep()
