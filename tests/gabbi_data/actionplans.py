"""Fixtures for the ``/v1`` stories (``gabbits/actionplans-*``).

``OngoingPlanFixture`` seeds a plan the API alone cannot produce (nothing runs
plans yet): an actuator audit whose plan (``ONGOING_PLAN_UUID``; a ``nop``
then a ``sleep``, ``ONGOING_FIRST_ACTION_UUID`` being the ``nop``) is put in
state ONGOING directly in the database, and an audit ``PENDING_AUDIT_UUID``
put back in state PENDING (audits are created SUCCEEDED here).
``SmallPagesFixture`` sets ``[api] max_limit = 3``.
"""

from __future__ import annotations

import os

from sqlalchemy import update

from placement.db import actionplan_tables
from tests.gabbi_fixtures import api_call

_ACTUATOR_AUDIT = {
    "audit_type": "ONESHOT",
    "goal": "unclassified",
    "strategy": "actuator",
    "name": "seeded-ongoing",
    "parameters": {
        "actions": [
            {"action_type": "nop", "input_parameters": {"message": "first"}},
            {"action_type": "sleep", "input_parameters": {"duration": 1}},
        ]
    },
}


def fixtures(api_fixture: type) -> list[type]:

    class OngoingPlanFixture(api_fixture):
        """One ONGOING plan of two PENDING actions."""

        def seed(self, app) -> None:
            _, audit = api_call(app, "POST", "/v1/audits", _ACTUATOR_AUDIT)
            _, found = api_call(app, "GET", f"/v1/action_plans?audit_uuid={audit['uuid']}")
            plan = found["action_plans"][0]["uuid"]
            _, listed = api_call(app, "GET", f"/v1/actions?action_plan_uuid={plan}")
            _, pending = api_call(
                app, "POST", "/v1/audits", {"audit_type": "ONESHOT", "goal": "dummy"}
            )
            plans, audits = actionplan_tables.action_plans, actionplan_tables.audits
            with app.placement_engine.begin() as conn:
                conn.execute(update(plans).where(plans.c.uuid == plan).values(state="ONGOING"))
                conn.execute(
                    update(audits).where(audits.c.uuid == pending["uuid"]).values(state="PENDING")
                )
            os.environ["PENDING_AUDIT_UUID"] = pending["uuid"]
            os.environ["ONGOING_PLAN_UUID"] = plan
            os.environ["ONGOING_FIRST_ACTION_UUID"] = listed["actions"][0]["uuid"]

    class SmallPagesFixture(api_fixture):
        """``[api] max_limit = 3``: no page of a ``/v1`` list holds more."""

        overrides = {"api": {"max_limit": 3}}

    return [OngoingPlanFixture, SmallPagesFixture]
