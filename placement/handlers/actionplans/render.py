"""Object-layer rows → the JSON upstream Watcher serves (doc/watcher-api.md §2.2, §3.6;
doc/planner.md §8). List items carry fewer fields than ``/detail`` items and shows;
the order of each item's keys is upstream's."""

from __future__ import annotations

import datetime
from typing import Any

import falcon

from placement import microversion as mv
from placement.handlers import base
from placement.objects.actionplans.actions import Action
from placement.objects.actionplans.audits import Audit
from placement.objects.actionplans.goals import Goal
from placement.objects.actionplans.paging import Row
from placement.objects.actionplans.plans import ActionPlan
from placement.objects.actionplans.scoring_engines import ScoringEngine
from placement.objects.actionplans.services import Service
from placement.objects.actionplans.strategies import Strategy
from placement.objects.actionplans.templates import AuditTemplate


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


def _times(row: Row) -> dict[str, str | None]:
    return {
        "created_at": timestamp(row.created_at),
        "updated_at": timestamp(row.updated_at),
        "deleted_at": timestamp(row.deleted_at),
    }


def _whole(
    req: falcon.Request, row: Audit | ActionPlan | Action, doc: dict[str, Any], **more: Any
) -> dict[str, Any]:
    """A show or ``/detail`` item: ``doc`` plus ``more``, the timestamps and (1.5+)
    ``status_message``."""
    whole = {**doc, **more, **_times(row)}
    if base.version(req) >= mv.STATUS_MESSAGE:
        whole["status_message"] = row.status_message
    return whole


def goal(req: falcon.Request, row: Goal, detail: bool) -> dict[str, Any]:
    doc = {
        "uuid": row.uuid,
        "name": row.name,
        "display_name": row.display_name,
        "efficacy_specification": row.efficacy_specification,
        "links": links(req, "goals", row.uuid),
    }
    return {**doc, **_times(row)} if detail else doc


def strategy(req: falcon.Request, row: Strategy, detail: bool) -> dict[str, Any]:
    doc = {
        "uuid": row.uuid,
        "name": row.name,
        "display_name": row.display_name,
        "goal_uuid": row.goal_uuid,
        "goal_name": row.goal_name,
        "links": links(req, "strategies", row.uuid),
    }
    return {**doc, "parameters_spec": row.parameters_spec} if detail else doc


def scoring_engine(req: falcon.Request, row: ScoringEngine, detail: bool) -> dict[str, Any]:
    """Shows and ``/detail`` items add ``metainfo`` (text, as the engine declares it);
    scoring engines have no timestamps."""
    doc = {
        "uuid": row.uuid,
        "name": row.name,
        "description": row.description,
        "links": links(req, "scoring_engines", row.uuid),
    }
    return {**doc, "metainfo": row.metainfo} if detail else doc


def audit(req: falcon.Request, row: Audit, detail: bool) -> dict[str, Any]:
    version = base.version(req)
    doc = {
        "uuid": row.uuid,
        "name": row.name,
        "audit_type": row.audit_type,
        "state": row.state,
        "goal_uuid": row.goal_uuid,
        "goal_name": row.goal_name,
        "strategy_uuid": row.strategy_uuid,
        "strategy_name": row.strategy_name,
        "links": links(req, "audits", row.uuid),
        "interval": row.interval,
        "scope": row.scope,
        "auto_trigger": row.auto_trigger,
        "next_run_time": naive_time(row.next_run_time),
        # Stored whatever the version, shown only from 1.2 (as upstream).
        "force": bool(row.force) if version >= mv.AUDIT_FORCE else False,
    }
    if not detail:
        return doc
    if version >= mv.AUDIT_START_END_TIME:
        doc.update(start_time=naive_time(row.start_time), end_time=naive_time(row.end_time))
    return _whole(req, row, doc, parameters=row.parameters, hostname=row.hostname)


def action_plan(req: falcon.Request, row: ActionPlan, detail: bool) -> dict[str, Any]:
    doc = {
        "uuid": row.uuid,
        "audit_uuid": row.audit_uuid,
        "strategy_uuid": row.strategy_uuid,
        "strategy_name": row.strategy_name,
        "state": row.state,
        "efficacy_indicators": row.efficacy_indicators,
        "global_efficacy": row.global_efficacy,
        "links": links(req, "action_plans", row.uuid),
        "updated_at": timestamp(row.updated_at),
    }
    return _whole(req, row, doc, hostname=row.hostname) if detail else doc


def action(req: falcon.Request, row: Action, detail: bool) -> dict[str, Any]:
    doc = {
        "uuid": row.uuid,
        "action_plan_uuid": row.action_plan_uuid,
        "action_type": row.action_type,
        "state": row.state,
        "parents": row.parents,
        "links": links(req, "actions", row.uuid),
    }
    if not detail:
        return doc
    return _whole(req, row, doc, description=row.description, input_parameters=row.input_parameters)


def audit_template(req: falcon.Request, row: AuditTemplate, detail: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "uuid": row.uuid,
        "name": row.name,
        "goal_uuid": row.goal_uuid,
        "goal_name": row.goal_name,
        "strategy_uuid": row.strategy_uuid,
        "strategy_name": row.strategy_name,
        "scope": row.scope,
        "links": links(req, "audit_templates", row.uuid),
    }
    if not detail:
        return doc
    doc.update(description=row.description, **_times(row))
    if base.version(req) >= mv.TEMPLATE_DEFAULT_PARAMETERS:
        # Upstream stores none as {} and shows that (a JSON-encoded dict column).
        doc["default_parameters"] = row.default_parameters or {}
    return doc


def service(req: falcon.Request, row: Service, detail: bool) -> dict[str, Any]:
    """Services are addressed by id; ``last_seen_up`` is naive, as upstream shows it."""
    doc: dict[str, Any] = {
        "id": row.id,
        "name": row.name,
        "host": row.host,
        "status": row.status,
        "links": links(req, "services", str(row.id)),
    }
    if not detail:
        return doc
    return {**doc, "last_seen_up": naive_time(row.last_seen_up), **_times(row)}
