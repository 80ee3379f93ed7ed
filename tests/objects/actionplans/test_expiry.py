"""Plan expiry on every database: old RECOMMENDED plans become SUPERSEDED and cannot start."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import update

from placement.actionplans import states
from placement.actionplans.errors import StartError
from placement.db import actionplan_tables as t
from placement.objects.actionplans import expiry, plans
from tests.objects.actionplans.store import Store

DAY = datetime.timedelta(hours=24)


def _created(store: Store, plan_uuid: str, when: datetime.datetime) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            update(t.action_plans).where(t.action_plans.c.uuid == plan_uuid).values(created_at=when)
        )


def test_only_old_recommended_plans_are_superseded(store: Store) -> None:
    now = datetime.datetime(2030, 1, 2, 12, 0, 0)
    old, fresh, started = (store.plan_of(store.audit()) for _ in range(3))
    _created(store, old.uuid, now - DAY - datetime.timedelta(seconds=1))
    _created(store, fresh.uuid, now - DAY + datetime.timedelta(seconds=1))
    plans.start_plan(store.engine, started.uuid)
    _created(store, started.uuid, now - 2 * DAY)
    assert expiry.supersede_expired(store.engine, DAY, now=now) == [old.uuid]
    assert plans.get_plan(store.engine, old.uuid).state == states.SUPERSEDED
    assert plans.get_plan(store.engine, fresh.uuid).state == states.RECOMMENDED
    assert plans.get_plan(store.engine, started.uuid).state == states.PENDING
    assert expiry.supersede_expired(store.engine, DAY, now=now) == []
    with pytest.raises(StartError, match="Couldn't start when state is 'SUPERSEDED'."):
        plans.start_plan(store.engine, old.uuid)
