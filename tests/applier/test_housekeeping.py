"""The applier's housekeeping thread: it beats as watcher-applier and expires old plans."""

from __future__ import annotations

import datetime
import threading

from sqlalchemy import update

from placement.actionplans import states
from placement.applier.housekeeping import Housekeeping
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import paging, plans, services
from tests import rig
from tests.objects.actionplans.store import Store


def test_beats_and_supersedes_until_stopped() -> None:
    with rig.placement_app("sqlite") as (app, conf):
        store = Store(app, "sqlite")
        plan = store.plan_of(store.audit())
        with store.engine.begin() as conn:
            conn.execute(
                update(t.action_plans)
                .where(t.action_plans.c.uuid == plan.uuid)
                .values(created_at=utcnow() - datetime.timedelta(hours=25))
            )
        conf.set_override("service_down_time", 3)
        stop = threading.Event()
        thread = Housekeeping(conf, store.engine, stop, host="hk-host").start()
        try:
            deadline = utcnow() + datetime.timedelta(seconds=10)
            while plans.get_plan(store.engine, plan.uuid).state != states.SUPERSEDED:
                assert utcnow() < deadline, "the plan was never superseded"
                stop.wait(0.05)
            listed = services.list_services(store.engine, paging.Page(), datetime.timedelta(3))
            assert [(row.host, row.name, row.status) for row in listed] == [
                ("hk-host", services.APPLIER, services.ACTIVE)
            ]
        finally:
            stop.set()
            thread.join(timeout=5)
        assert not thread.is_alive()
