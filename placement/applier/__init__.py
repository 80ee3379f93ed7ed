"""The applier: executes started action plans (``placement-applier``).

* the action types it runs are the effects of :mod:`placement.effects`,
  loaded by ``placement-applier`` (``placement/cmd/applier.py``) through
  :mod:`placement.effects.registry` from the entry-point group of
  ``[watcher_applier] executor``;
* :mod:`.patience` retries database work through outages, with backoff;
* :mod:`.action_run` runs one action: its effect and the record of its final
  state in one transaction;
* :mod:`.plan_run` executes one claimed plan: dispatches ready actions to at
  most ``max_workers`` threads, cascades failures, obeys a cancel;
* :mod:`.service` claims plans one after another and keeps the lease alive;
* :mod:`.housekeeping` beats the ``watcher-applier`` heartbeat and expires
  old RECOMMENDED plans.

Scheduling rules are pure (:mod:`placement.actionplans.execution`); every
write is a compare-and-swap (:mod:`placement.objects.actionplans.execution`).
"""
