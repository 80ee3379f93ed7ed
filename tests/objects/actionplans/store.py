"""The whole app per backend and module (its start-up writes the catalog), plus shortcuts
for the action-plan object layer. Tests make their own audits (fresh names)."""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy

from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import PlannerOptions
from placement.db import actionplan_tables as t
from placement.db import reader
from placement.objects.actionplans import actions, audits, paging, plans
from placement.objects.actionplans.actions import Action
from placement.objects.actionplans.audits import Audit
from placement.objects.actionplans.plans import ActionPlan


class Store:
    """The app's engine and the calls the tests repeat."""

    def __init__(self, app: Any, backend: str) -> None:
        self.app = app
        self.engine: sqlalchemy.Engine = app.placement_engine
        self.backend = backend
        self.options = PlannerOptions()

    def audit(self, *items: dict, **fields: Any) -> Audit:
        """A new actuator audit whose actions are ``items`` (nop messages by default)."""
        fields.setdefault("name", f"audit-{uuid.uuid4().hex[:8]}")
        fields.setdefault("goal", "unclassified")
        fields.setdefault("strategy", "actuator")
        fields.setdefault("audit_type", "ONESHOT")
        # Tests put plans ONGOING by hand in the module's shared database: plan
        # regardless (the force guard has tests of its own).
        fields.setdefault("force", True)
        if "parameters" not in fields:
            fields["parameters"] = {"actions": list(items or nops(3))}
        return audits.create_audit(self.engine, self.options, AuditRequest.from_body(fields))

    def plan_of(self, audit: Audit) -> ActionPlan:
        (plan,) = plans.list_plans(self.engine, paging.Page(), audit_uuid=audit.uuid)
        return plan

    def actions_of(self, plan: ActionPlan) -> list[Action]:
        return actions.list_actions(self.engine, paging.Page(), action_plan_uuid=plan.uuid)

    def set_state(self, table: sqlalchemy.Table, uuid_: str, state: str) -> None:
        """Put a row in a state the API cannot reach by itself (the applier's states)."""
        with self.engine.begin() as conn:
            conn.execute(table.update().where(table.c.uuid == uuid_).values(state=state))

    def counts(self) -> dict[str, int]:
        """Rows per action-plan table, soft-deleted ones included."""
        with reader(self.engine) as conn:
            return {
                table.name: conn.execute(
                    sqlalchemy.select(sqlalchemy.func.count()).select_from(table)
                ).scalar_one()
                for table in (t.audits, t.action_plans, t.actions)
            }


def nop(message: str) -> dict:
    return {"action_type": "nop", "input_parameters": {"message": message}}


def nops(count: int) -> list[dict]:
    return [nop(f"step {index}") for index in range(count)]
