"""Write the built-in goals, strategies and scoring engines (``placement.actionplans.catalog``)
as rows.

Every API process calls :func:`sync_catalog` at start-up (and ``placement-manage
db sync`` does too), possibly several at the same moment. A read-only pass comes
first, which is all that happens once the rows are current; otherwise one writer
transaction inserts what is missing (with a fresh uuid, in catalog order, so ids
follow upstream's entry-point order) and updates names and specs that changed.
Losing a race to another process shows as a duplicate-key error (or a deadlock,
lock timeout, "database is locked"); the whole sync then runs again and finds
the other process's rows. Rows are never deleted, so uuids stay stable.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Sequence
from typing import Any

import sqlalchemy
from sqlalchemy import Table, insert, select, update
from sqlalchemy.engine import Connection, Engine

from placement.actionplans import catalog
from placement.db import actionplan_tables as t
from placement.db.transaction import is_retryable_db_error, reader, writer

LOG = logging.getLogger(__name__)

_ATTEMPTS = 10


def sync_catalog(engine: Engine) -> None:
    """Make the goals, strategies and scoring engines tables hold the catalog; opens its
    own transactions."""
    for attempt in range(1, _ATTEMPTS + 1):
        with reader(engine) as conn:
            if not _sync(conn, apply=False):
                return
        try:
            with writer(engine) as conn:
                _sync(conn, apply=True)
            LOG.info("Action-plan catalog written")
            return
        except sqlalchemy.exc.DBAPIError as exc:
            duplicate = isinstance(exc, sqlalchemy.exc.IntegrityError)
            if attempt == _ATTEMPTS or not (duplicate or is_retryable_db_error(exc)):
                raise
            LOG.debug("Catalog sync raced another process (%s); retrying", exc.orig)
            time.sleep(random.uniform(0, 0.05 * attempt))


def _sync(conn: Connection, *, apply: bool) -> bool:
    """True when the tables differ from the catalog; with ``apply``, also fix them."""
    goals = [
        {
            "name": goal.name,
            "display_name": goal.display_name,
            "efficacy_specification": list(goal.efficacy_specification),
        }
        for goal in catalog.GOALS
    ]
    changed = _sync_rows(conn, t.goals, goals, apply=apply)
    if changed and not apply:
        return True
    goal_ids = {
        name: goal_id for name, goal_id in conn.execute(select(t.goals.c.name, t.goals.c.id))
    }
    strategies = [
        {
            "name": strategy.name,
            "display_name": strategy.display_name,
            "goal_id": goal_ids[strategy.goal],
            "parameters_spec": strategy.parameters_spec,
        }
        for strategy in catalog.STRATEGIES
    ]
    changed = _sync_rows(conn, t.strategies, strategies, apply=apply) or changed
    scoring_engines = [
        {"name": engine.name, "description": engine.description, "metainfo": engine.metainfo}
        for engine in catalog.SCORING_ENGINES
    ]
    return _sync_rows(conn, t.scoring_engines, scoring_engines, apply=apply) or changed


def _sync_rows(
    conn: Connection, table: Table, wanted: Sequence[dict[str, Any]], *, apply: bool
) -> bool:
    """Compare ``wanted`` rows (by name) with ``table``; with ``apply``, insert/update."""
    existing = {row["name"]: row for row in conn.execute(select(table)).mappings()}
    missing = [row for row in wanted if row["name"] not in existing]
    stale = [
        (existing[row["name"]]["id"], row)
        for row in wanted
        if row["name"] in existing
        and any(existing[row["name"]][key] != value for key, value in row.items())
    ]
    if apply:
        if missing:
            conn.execute(insert(table), [{**row, "uuid": str(uuid.uuid4())} for row in missing])
        for row_id, row in stale:
            conn.execute(update(table).where(table.c.id == row_id).values(**row))
    return bool(missing or stale)
