"""A JSON-Patch on an audit template → the attributes it changes (doc/watcher-api.md §3.7).

``audittemplate update <t> replace goal=... strategy=...`` sends one operation
per attribute, each on a root attribute. Upstream applies the patch to the
stored row and refuses with these words what it cannot apply; here the patch
is read into ``{attribute: new value}`` (``remove`` gives None) before
anything is looked up, so a refused patch changes nothing. Only root
attributes may be changed: the whole ``scope`` or ``default_parameters`` is
replaced, never one element of it. A null goal is kept as None: the object
layer leaves the template's goal as it was but, as upstream, still asks for
new default parameters of a template that has some.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from placement.actionplans.errors import Invalid

#: What a template PATCH may change, by path.
CHANGEABLE = ("/name", "/description", "/goal", "/strategy", "/scope", "/default_parameters")
#: Upstream's internal attributes: never changed, named as such in the refusal.
INTERNAL = ("/created_at", "/id", "/links", "/updated_at", "/deleted_at", "/uuid")
#: Attributes a template cannot be without.
MANDATORY = ("/name",)
#: The values each attribute takes (the POST body's rules), and the longest text.
_TYPES: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "description": (str,),
    "goal": (str,),
    "strategy": (str,),
    "scope": (list,),
    "default_parameters": (dict,),
}
_LENGTHS: dict[str, tuple[int, int]] = {"name": (1, 63), "description": (0, 255)}


def changes(patch: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The attributes ``patch`` sets (without the slash), in order; a later operation
    on the same path wins. Raises Invalid in upstream's words for a refused one."""
    result: dict[str, Any] = {}
    for operation in patch:
        path, op = operation["path"], operation["op"]
        _check_path(path, op)
        if op == "remove":
            result[path[1:]] = None
        elif "value" not in operation:
            raise Invalid("'add' and 'replace' operations needs value")
        else:
            result[path[1:]] = _checked_value(path[1:], operation["value"])
    return result


def _checked_value(name: str, value: Any) -> Any:
    """``value`` if attribute ``name`` may take it (a JSON ``null`` is a removal)."""
    if value is None:
        if f"/{name}" in MANDATORY:
            raise Invalid(f"'/{name}' is a mandatory attribute and can not be removed")
        return None
    wanted = _TYPES[name]
    if not isinstance(value, wanted):
        raise Invalid(f"Invalid value for /{name}: {value!r} is not a {wanted[0].__name__}")
    if (
        isinstance(value, str)
        and name in _LENGTHS
        and not _LENGTHS[name][0] <= len(value) <= _LENGTHS[name][1]
    ):
        shortest, longest = _LENGTHS[name]
        raise Invalid(
            f"Invalid value for /{name}: from {shortest} to {longest} characters are allowed"
        )
    return value


def _check_path(path: str, op: str) -> None:
    root = "/" + path.split("/")[1]
    if root in INTERNAL:
        raise Invalid(f"'{path}' is an internal attribute and can not be updated")
    if root not in CHANGEABLE and op == "add":
        raise Invalid(f"Adding a new attribute ({path}) to the root of the resource is not allowed")
    if root not in CHANGEABLE or path != root:
        raise Invalid(f"'{path}' is not an allowed attribute and can not be updated")
    if op == "remove" and path == "/goal":
        raise Invalid("Cannot remove 'goal' attribute from an audit template")
    if op == "remove" and path in MANDATORY:
        raise Invalid(f"'{path}' is a mandatory attribute and can not be removed")
