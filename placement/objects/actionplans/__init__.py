"""Storage and queries of the action-plan subsystem (goals, strategies, audits, plans, actions).

One module per resource, as Placement's objects: what the handlers and the
applier call takes the ``Engine`` and opens its own ``db.reader``/``db.writer``
transaction (one per call, so a lookup and a page are each consistent);
helpers that run inside a caller's transaction take a ``Connection`` (their
docstrings say so). Results are frozen rows (``goals.Goal``, ``audits.Audit``,
``plans.ActionPlan``, ``execution.Claim`` …): the columns plus the joined names
the API shows (``goal_uuid``, ``strategy_name`` …), read as attributes mypy
checks. Failures are the typed errors of :mod:`placement.actionplans.errors`.
Soft-deleted rows are invisible to every function here.
"""
