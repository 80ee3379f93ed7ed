"""Object-layer dicts → the JSON upstream Watcher serves (WATCHER_API.md 2.2, 3.6;
PLANNER.md 8). List items carry fewer fields than ``/detail`` items and shows."""

from __future__ import annotations

import datetime
from typing import Any

import falcon

from placement import microversion as mv
from placement.handlers import base


def timestamp(value: datetime.datetime | None) -> str | None:
    """A stored naive-UTC time as ISO 8601 with ``+00:00``."""
    if value is None:
        return None
    return value.replace(tzinfo=datetime.timezone.utc).isoformat()


def naive_time(value: datetime.datetime | None) -> str | None:
    """A stored naive-UTC time as ISO 8601 without offset (audit schedule fields)."""
    return None if value is None else value.isoformat()


def host_url(req: falcon.Request) -> str:
    """``<scheme>://<host>[<mount prefix>]`` of the request."""
    return base.absolute_url(req, "")


def links(req: falcon.Request, collection: str, uuid: str) -> list[dict[str, str]]:
    """``self`` and ``bookmark``: both under ``/v1`` (nothing else is Watcher's here)."""
    href = f"{host_url(req)}/v1/{collection}/{uuid}"
    return [{"href": href, "rel": "self"}, {"href": href, "rel": "bookmark"}]


def _times(row: dict[str, Any]) -> dict[str, str | None]:
    return {name: timestamp(row[name]) for name in ("created_at", "updated_at", "deleted_at")}


def _pick(row: dict[str, Any], *names: str) -> dict[str, Any]:
    """The row's values of ``names``, as they are stored."""
    return {name: row[name] for name in names}


def _whole(req: falcon.Request, row: dict[str, Any], doc: dict[str, Any], **more: Any) -> dict:
    """A show or ``/detail`` item: ``doc`` plus ``more``, the timestamps and (1.5+)
    ``status_message``."""
    whole = {**doc, **more, **_times(row)}
    if base.version(req) >= mv.STATUS_MESSAGE:
        whole["status_message"] = row["status_message"]
    return whole


def goal(req: falcon.Request, row: dict[str, Any], detail: bool) -> dict[str, Any]:
    doc = {
        **_pick(row, "uuid", "name", "display_name", "efficacy_specification"),
        "links": links(req, "goals", row["uuid"]),
    }
    return {**doc, **_times(row)} if detail else doc


def strategy(req: falcon.Request, row: dict[str, Any], detail: bool) -> dict[str, Any]:
    doc = {
        **_pick(row, "uuid", "name", "display_name", "goal_uuid", "goal_name"),
        "links": links(req, "strategies", row["uuid"]),
    }
    return {**doc, "parameters_spec": row["parameters_spec"]} if detail else doc


def audit(req: falcon.Request, row: dict[str, Any], detail: bool) -> dict[str, Any]:
    version = base.version(req)
    doc = {
        **_pick(row, "uuid", "name", "audit_type", "state", "goal_uuid", "goal_name"),
        **_pick(row, "strategy_uuid", "strategy_name"),
        "links": links(req, "audits", row["uuid"]),
        **_pick(row, "interval", "scope", "auto_trigger"),
        "next_run_time": naive_time(row["next_run_time"]),
        # Stored whatever the version, shown only from 1.2 (as upstream).
        "force": bool(row["force"]) if version >= mv.AUDIT_FORCE else False,
    }
    if not detail:
        return doc
    if version >= mv.AUDIT_START_END_TIME:
        doc.update(start_time=naive_time(row["start_time"]), end_time=naive_time(row["end_time"]))
    return _whole(req, row, doc, **_pick(row, "parameters", "hostname"))


def action_plan(req: falcon.Request, row: dict[str, Any], detail: bool) -> dict[str, Any]:
    doc = {
        **_pick(row, "uuid", "audit_uuid", "strategy_uuid", "strategy_name", "state"),
        **_pick(row, "efficacy_indicators", "global_efficacy"),
        "links": links(req, "action_plans", row["uuid"]),
        "updated_at": timestamp(row["updated_at"]),
    }
    return _whole(req, row, doc, hostname=row["hostname"]) if detail else doc


def action(req: falcon.Request, row: dict[str, Any], detail: bool) -> dict[str, Any]:
    doc = {
        **_pick(row, "uuid", "action_plan_uuid", "action_type", "state", "parents"),
        "links": links(req, "actions", row["uuid"]),
    }
    if not detail:
        return doc
    return _whole(req, row, doc, **_pick(row, "description", "input_parameters"))
