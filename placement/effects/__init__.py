"""The applier's act step: what each built-in action type does to this service's own data.

One module per action family; every module exposes :class:`placement.effects.base.Effect`
objects, each carrying its type's declaration, registered through the entry-point
group ``placement.actionplans.action_types`` (``registry.py``). Effects sit above
the object layer and the candidates engine (a migration's destination is an
allocation candidate), below the handlers and the applier that call them.
"""
