"""Placement data for the metric strategies' end-to-end tests, written through the API:
8-VCPU, 8 GB nodes and 2-VCPU servers, and reads at the newest infra-optim version."""

from __future__ import annotations

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
