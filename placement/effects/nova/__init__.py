"""The ``nova`` executor's action types: each asks Nova's compute API, then waits for it.

Registered in the entry-point group ``placement.actionplans.action_types.nova``
(``[watcher_applier] executor = nova``), with the same declarations as the
``placement`` executor's types. Every one is blocking (no transaction is held
while Nova works), writes nothing to Placement's tables (Nova moves the
allocations), records what it asks on the action before asking
(``RunEnv.record``), and after a crash reconciles from Nova's own state
(``reconcile.py``) before asking anything again.
"""
