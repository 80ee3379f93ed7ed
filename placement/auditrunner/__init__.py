"""The audit runner: runs CONTINUOUS audits on their schedule and EVENT audits
when their webhook fires (``placement-audit-runner``; upstream Watcher's
decision engine does this with APScheduler jobs pinned to one host).

* :mod:`.run` runs one claimed audit: the window, the force guard, the
  strategy and planner, the outcome;
* :mod:`.service` claims due audits one after another, keeps the lease of the
  running one alive and beats the ``watcher-decision-engine`` heartbeat.

Scheduling rules are pure (:mod:`placement.actionplans.schedule`); every write
is a compare-and-swap (:mod:`placement.objects.actionplans.audit_runs`).
"""
