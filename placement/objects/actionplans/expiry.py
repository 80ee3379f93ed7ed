"""Plan expiry: RECOMMENDED plans older than ``[watcher_decision_engine] action_plan_expiry``
hours become SUPERSEDED (doc/planner.md §7), as upstream's periodic check does.

A plan is built on the capacity of the moment its audit ran; a day later its
moves may overcommit nodes or chase consumers long gone, so it can no longer
be started (``Couldn't start when state is 'SUPERSEDED'.``). Only the plan's
state changes: its actions stay as they were, for the record. One UPDATE, so
several appliers checking at once simply find nothing left to do.
"""

from __future__ import annotations

import datetime

from sqlalchemy import select, update
from sqlalchemy.engine import Engine

from placement import db
from placement.actionplans import states
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow


def supersede_expired(
    engine: Engine, max_age: datetime.timedelta, now: datetime.datetime | None = None
) -> list[str]:
    """Mark the live RECOMMENDED plans created more than ``max_age`` before ``now``
    (default: the clock) SUPERSEDED; returns their uuids. Opens its own write transaction."""
    now = now or utcnow()
    plans = t.action_plans
    expired = (
        plans.c.state == states.RECOMMENDED,
        plans.c.created_at < now - max_age,
        plans.c.deleted_at.is_(None),
    )
    with db.writer(engine) as conn:
        uuids = list(conn.execute(select(plans.c.uuid).where(*expired)).scalars())
        if uuids:
            conn.execute(
                update(plans)
                .where(plans.c.uuid.in_(uuids), *expired)
                .values(state=states.SUPERSEDED, updated_at=now)
            )
    return uuids
