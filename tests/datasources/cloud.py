"""Placement data for the metric strategies' end-to-end tests, written through the API:
8-VCPU, 8 GB nodes and 2-VCPU servers, and reads at the newest infra-optim version."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests import rig

LATEST = {"X-Auth-Token": "admin", "OpenStack-API-Version": "infra-optim latest"}


def _ok(app: Any, method: str, path: str, body: Any = None) -> Any:
    status, data = rig.call(app, method, path, body, "1.38")
    assert status < 400, (method, path, status, data)
    return data


def add_node(app: Any, name: str) -> str:
    """A node ``name`` of 8 VCPU and 8192 MB; its uuid."""
    rp = str(uuid.uuid4())
    _ok(app, "POST", "/resource_providers", {"name": name, "uuid": rp})
    inventories = {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 8192}}
    body = {"resource_provider_generation": 0, "inventories": inventories}
    _ok(app, "PUT", f"/resource_providers/{rp}/inventories", body)
    return rp


def add_server(app: Any, consumer: str, node: str) -> None:
    """A server ``consumer`` holding 2 VCPU and 2048 MB on ``node``."""
    body = {
        "allocations": {node: {"resources": {"VCPU": 2, "MEMORY_MB": 2048}}},
        "project_id": "project",
        "user_id": "user",
        "consumer_generation": None,
        "consumer_type": "INSTANCE",
    }
    _ok(app, "PUT", f"/allocations/{consumer}", body)


def get(app: Any, path: str) -> Any:
    """A 200 answer's body at the newest infra-optim version."""
    reply = rig.request(app, "GET", path, LATEST)
    assert reply.status == 200, reply.body
    return reply.json()


def post_audit(app: Any, goal: str, strategy: str) -> dict:
    """A ONESHOT audit of ``strategy`` through ``POST /v1/audits`` (201); the audit."""
    body = {"audit_type": "ONESHOT", "goal": goal, "strategy": strategy}
    headers = {**LATEST, "Content-Type": "application/json"}
    reply = rig.request(app, "POST", "/v1/audits", headers, json.dumps(body).encode())
    assert reply.status == 201, reply.body
    return reply.json()


def plan_of(app: Any, audit: dict) -> tuple[dict, list[dict]]:
    """The plan a SUCCEEDED audit left and its actions, in plan order."""
    assert audit["state"] == "SUCCEEDED", audit["status_message"]
    (plan,) = get(app, f"/v1/action_plans/detail?audit_uuid={audit['uuid']}")["action_plans"]
    return plan, get(app, f"/v1/actions/detail?action_plan_uuid={plan['uuid']}")["actions"]


def moves(actions: list[dict]) -> list[tuple[str, str, str]]:
    """Each migrate's server, source and destination."""
    return [
        (
            a["input_parameters"]["resource_id"],
            a["input_parameters"]["source_node"],
            a["input_parameters"]["destination_node"],
        )
        for a in actions
        if a["action_type"] == "migrate"
    ]
