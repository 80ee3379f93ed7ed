"""The JSON-Patch of ``PATCH /v1/audits/{audit}`` → the attributes it changes.

Upstream's refusals, in its words (doc/watcher-api.md §3.5): internal paths
(a plain 400), ``/audit_template_uuid``, ``/type`` and a null state (the patch
quoted), a new attribute added at the root. Upstream applies a patch to any
other attribute unchecked; here only the attributes a client can mean to
change are accepted (``audit_changes.CHANGEABLE``), each whole, and their
values are checked by the object layer.
"""

from __future__ import annotations

from typing import Any

from placement import errors
from placement.actionplans.audit_changes import CHANGEABLE
from placement.actionplans.errors import PatchRefused

#: Never changed by a client: a plain 400 naming the path.
INTERNAL = frozenset(
    {"created_at", "id", "links", "updated_at", "deleted_at", "uuid", "status_message"}
)
#: Refused as upstream's "mandatory" attributes.
FIXED = frozenset({"audit_template_uuid", "type"})
#: The other attributes an audit shows: they exist, but follow from the rest.
SHOWN = frozenset(
    {
        "audit_type",
        "goal_uuid",
        "goal_name",
        "strategy_uuid",
        "strategy_name",
        "scope",
        "next_run_time",
        "hostname",
    }
)


def changes(patch: list[dict[str, Any]]) -> dict[str, Any]:
    """Attribute -> new value (None for a removal), operations applied in order."""
    changed: dict[str, Any] = {}
    for operation in patch:
        path, op = operation["path"], operation["op"]
        attribute = path.split("/")[1]
        value = None if op == "remove" else operation.get("value")
        _refuse(attribute, path, op, value, "value" in operation)
        changed[attribute] = value
    return changed


def _refuse(attribute: str, path: str, op: str, value: Any, has_value: bool) -> None:
    """Raise what upstream answers for this operation, if anything, in its order."""
    if attribute in INTERNAL:
        raise errors.BadRequest(f"'{path}' is an internal attribute and can not be updated")
    if op != "remove" and not has_value:
        raise errors.BadRequest("'add' and 'replace' operations needs value")
    if path in (f"/{name}" for name in FIXED) or (path == "/state" and value is None):
        raise PatchRefused(f"{path} can't be updated.")
    _refuse_unchangeable(attribute, path, op)


def _refuse_unchangeable(attribute: str, path: str, op: str) -> None:
    """An attribute the audit lacks, one that follows from others, or a part of one."""
    known = CHANGEABLE | SHOWN
    if op == "add" and attribute not in known:
        raise errors.BadRequest(
            f"Adding a new attribute ({path}) to the root of  the resource is not allowed"
        )
    if attribute not in known:
        raise PatchRefused(f"can't {op} a non-existent object '{attribute}'")
    if attribute not in CHANGEABLE:
        raise PatchRefused(
            f"{path} follows from the audit's other attributes and can't be updated."
        )
    if path != f"/{attribute}":
        raise PatchRefused(f"{path}: only a whole attribute can be changed")
