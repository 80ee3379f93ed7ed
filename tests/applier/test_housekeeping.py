"""The applier's housekeeping: it beats as watcher-applier (first at start-up) and
expires old plans."""

from __future__ import annotations

import datetime
import socket
import threading

import pytest
from sqlalchemy import update

from placement.actionplans import states
from placement.applier.housekeeping import Housekeeping
from placement.applier.service import LOG as service_log
from placement.applier.service import Applier
from placement.db import actionplan_tables as t
from placement.db.tables import utcnow
from placement.objects.actionplans import paging, plans, services
from tests import rig, service_rows
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


@pytest.mark.parametrize("backend", rig.backends())
def test_the_applier_is_listed_when_it_says_it_started(backend: str) -> None:
    """Its row is written at start-up, before the ``started`` line and the housekeeping
    thread: read from that line's handler, it is there."""
    with rig.placement_app(backend) as (app, conf):
        engine, stop = app.placement_engine, threading.Event()
        applier = Applier(conf, engine, types={}, stop=stop)
        with service_rows.at_start(service_log.name, engine, r"^Applier \S+ started", stop) as seen:
            applier.run()
        assert seen.listed == [(socket.gethostname(), services.APPLIER, services.ACTIVE)]


_LOCKS = {
    "postgresql": ("LOCK TABLE action_plans IN ACCESS EXCLUSIVE MODE", None),
    "mysql": ("LOCK TABLES action_plans WRITE", "UNLOCK TABLES"),
}


@pytest.mark.parametrize("backend", [b for b in rig.backends() if b in _LOCKS])
def test_a_stopping_applier_waits_for_its_housekeeping_to_let_go(backend: str) -> None:
    """The expiry check is in progress (held on a locked table) when the applier
    is told to stop: ``run`` returns only once that check has ended, so whoever
    disposes of the engine next finds all its connections returned."""
    lock, unlock = _LOCKS[backend]
    with rig.placement_app(backend) as (app, conf):
        engine, stop = app.placement_engine, threading.Event()
        earlier = set(threading.enumerate())
        holder = engine.connect()
        transaction = holder.begin()
        holder.exec_driver_sql(lock)

        def release() -> None:
            if unlock:
                holder.exec_driver_sql(unlock)
            transaction.commit()
            holder.close()

        releasing = threading.Timer(1.0, release)
        applier = Applier(conf, engine, types={}, stop=stop)
        with service_rows.at_start(service_log.name, engine, r"^Applier \S+ started", stop):
            releasing.start()  # stop is set by the started line, a second before this
            applier.run()
        housekeeping = [
            thread
            for thread in set(threading.enumerate()) - earlier
            if thread.name == "applier-housekeeping"
        ]
        releasing.join()
        assert housekeeping == []
