"""The applier's act step: what each built-in action type does, per executor.

The ``placement`` executor's types act on this service's own data, one module
per action family here; the ``nova`` executor's ask Nova's compute API
(:mod:`placement.effects.nova`). Every module exposes
:class:`placement.effects.base.Effect` objects, each carrying its type's
declaration, registered through the entry-point group of its executor
(``placement.actionplans.action_types``, ``placement.actionplans.action_types.nova``)
and loaded by ``registry.py``. Effects sit above the object layer and the
candidates engine (a migration's destination is an allocation candidate),
below the handlers and the applier that call them.
"""
