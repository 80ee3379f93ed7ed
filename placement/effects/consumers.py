"""``delete``, ``shelve`` and ``stop``: what those server operations do to Placement.

Deleting a server or shelve-offloading it gives back everything it holds, so
both remove the consumer's allocations (and with them the consumer). A stopped
server keeps its allocations: ``stop`` only checks the consumer is still there
(skipped when it is not: nothing to stop, as upstream skips a stop of a server
that is gone).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from placement.actionplans.action_types import names
from placement.effects import base, holdings
from placement.effects.builtin import BuiltinType
from placement.objects import consumer as consumer_obj


def release(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Remove everything consumer ``resource_id`` holds (deleted or shelved-offloaded)."""
    consumer = params["resource_id"]
    held = holdings.read(conn, consumer)
    if held is None:
        return base.skipped(f"consumer {consumer} has no allocations")
    holdings.rewrite(conn, held, {})
    return base.succeeded()


def stop(conn: Connection, params: dict[str, Any], env: base.RunEnv) -> base.Outcome:
    """Check that consumer ``resource_id`` still exists."""
    consumer = params["resource_id"]
    if not consumer_obj.get_by_uuids(conn, [consumer]):
        return base.skipped(f"consumer {consumer} not found")
    return base.succeeded()


DELETE = BuiltinType(names.DELETE, release)
SHELVE = BuiltinType(names.SHELVE, release)
STOP = BuiltinType(names.STOP, stop)
