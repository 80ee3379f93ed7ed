"""One run of a claimed audit (doc/planner.md §7, upstream's ``AuditHandler.execute``).

In order: a run before ``start_time`` is skipped until then; a CONTINUOUS audit
past its ``end_time`` is SUCCEEDED; while any plan is ONGOING, an audit
without ``force`` is skipped (its state unchanged) until its next time; else
the audit becomes ONGOING, its strategy runs on the current capacity (and,
for a metric strategy, on what ``measure`` read from the datasource) and the
plan is stored with the outcome. A refusal of the strategy or the planner (a
typed error, no datasource answering among them) makes the audit FAILED with
the error as its status message, and it is never run again, as upstream does.
"""

from __future__ import annotations

import datetime
import enum
import logging
from collections.abc import Callable

from sqlalchemy.engine import Engine

from placement.actionplans import audit_types, schedule, states
from placement.actionplans.datasources import Measure
from placement.actionplans.errors import ActionPlanError, ActionPlanIsOngoing
from placement.actionplans.planners import PlannerOptions
from placement.objects.actionplans import audit_runs
from placement.objects.actionplans.audit_runs import AuditClaim

LOG = logging.getLogger(__name__)

Clock = Callable[[], datetime.datetime]


class Outcome(enum.Enum):
    """How a run ended."""

    PLANNED = "planned"
    BEFORE_START = "skipped before its start time"
    ENDED = "past its end time"
    PLAN_ONGOING = "skipped while a plan is ONGOING"
    FAILED = "failed"
    LOST = "no longer ours"


def next_time(claim: AuditClaim, now: datetime.datetime) -> datetime.datetime | None:
    """When the audit is due again after a run at ``now`` (an EVENT audit: at its next webhook)."""
    if claim.audit_type != audit_types.CONTINUOUS or claim.interval is None:
        return None
    return schedule.next_run(claim.interval, now)


def run_audit(
    engine: Engine,
    options: PlannerOptions,
    claim: AuditClaim,
    runner_id: str,
    clock: Clock,
    measure: Measure | None = None,
) -> Outcome:
    """Run ``claim`` as the module says; the lease ends with the run."""
    now = clock()
    if schedule.before_window(claim.start_time, now):
        audit_runs.release(engine, claim, runner_id, claim.start_time)
        return Outcome.BEFORE_START
    if claim.audit_type == audit_types.CONTINUOUS and schedule.after_window(claim.end_time, now):
        audit_runs.end(engine, claim.id, runner_id, states.SUCCEEDED, None)
        return Outcome.ENDED
    running = None if claim.force else audit_runs.ongoing_plan(engine)
    if running is not None:
        LOG.info("Audit %s not run: %s", claim.uuid, ActionPlanIsOngoing(running))
        audit_runs.release(engine, claim, runner_id, next_time(claim, now))
        return Outcome.PLAN_ONGOING
    if not audit_runs.begin(engine, claim.id, runner_id):
        return Outcome.LOST
    return _plan_and_store(engine, options, claim, runner_id, clock, measure)


def _plan_and_store(
    engine: Engine,
    options: PlannerOptions,
    claim: AuditClaim,
    runner_id: str,
    clock: Clock,
    measure: Measure | None,
) -> Outcome:
    try:
        planned = audit_runs.plan(engine, options, claim, measure)
    except ActionPlanError as exc:
        LOG.warning("Audit %s failed: %s", claim.uuid, exc)
        audit_runs.end(engine, claim.id, runner_id, states.FAILED, str(exc))
        return Outcome.FAILED
    if not audit_runs.store(engine, claim, runner_id, planned, next_time(claim, clock())):
        return Outcome.LOST
    return Outcome.PLANNED
