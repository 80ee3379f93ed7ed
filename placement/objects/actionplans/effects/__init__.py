"""What each built-in action type does to this service's own data.

One module per action family; every module exposes objects satisfying
:class:`placement.objects.actionplans.effects.base.ActionType`, registered
through the entry-point group ``placement.actionplans.action_types``.
"""
