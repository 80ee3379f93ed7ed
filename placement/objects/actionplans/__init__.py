"""Storage and queries of the action-plan subsystem (goals, strategies, audits, plans, actions).

One module per resource; every function takes a ``Connection`` from
:func:`placement.db.transaction.reader`/``writer`` or an ``Engine`` when it must
own its transaction (its docstring says which). Results are plain dicts keyed by
column name plus the joined names the API shows (``goal_uuid``, ``strategy_name``
…); failures are the typed errors of :mod:`placement.actionplans.errors`.
Soft-deleted rows are invisible to every function here.
"""
