"""What the Nova cloud's plan scenarios share: audits asked of our ``/v1``, plans and
actions read back, appliers run to a plan's end, and Nova's view of servers and hosts.

Used by ``test_executor.py`` (the ``nova`` executor's plans) and ``test_faults.py``
(the same under Nova, Keystone and broker faults).
"""

from __future__ import annotations

import time
from typing import Any

from tests.nova import cloud

VCPUS, RAM_MB, DISK_GB = 1, 512, 1
SMALL = {"VCPU": VCPUS, "MEMORY_MB": RAM_MB, "DISK_GB": DISK_GB}
MEDIUM = {"VCPU": 2, "MEMORY_MB": 1024, "DISK_GB": DISK_GB}
#: Status messages of plans and actions are shown from infra-optim 1.5 on.
INFRA_OPTIM = "1.5"
LEASE_S = 3.0
PLAN_TIMEOUT_S = 240
ENDED = ("SUCCEEDED", "FAILED", "CANCELLED")
APPLIER_OPTIONS = "migration_timeout = 180\nresize_timeout = 180\n"


def services(nova: cloud.Cloud) -> dict[str, dict[str, Any]]:
    found = nova.compute.get("/os-services?binary=nova-compute").json()["services"]
    return {service["host"]: service for service in found}


def providers(nova: cloud.Cloud) -> dict[str, str]:
    """Each host's compute node provider (the hypervisor's uuid, Nova's view)."""
    return {h["hypervisor_hostname"]: h["id"] for h in nova.hypervisors()}


def servers_on(nova: cloud.Cloud, host: str) -> list[str]:
    found = nova.compute.get(f"/servers/detail?all_tenants=1&host={host}").json()["servers"]
    return [server["id"] for server in found]


def migrations(nova: cloud.Cloud, server_id: str) -> list[dict[str, Any]]:
    path = f"/os-migrations?instance_uuid={server_id}"
    return nova.compute.get(path, microversion="2.59").json()["migrations"]


def held(nova: cloud.Cloud, consumer: str) -> dict[str, dict[str, int]]:
    allocations = nova.placement.get(f"/allocations/{consumer}").json()["allocations"]
    return {rp: alloc["resources"] for rp, alloc in allocations.items()}


def audit(nova: cloud.Cloud, body: dict[str, Any]) -> str:
    """Create an auto-triggered ONESHOT audit; its plan's uuid."""
    body = {"audit_type": "ONESHOT", "auto_trigger": True, **body}
    response = nova.watcher.post("/v1/audits", json=body, raise_exc=False)
    assert response.status_code == 201, response.text
    audit = response.json()["uuid"]
    plans = nova.watcher.get(f"/v1/action_plans?audit_uuid={audit}").json()["action_plans"]
    assert len(plans) == 1, plans
    return str(plans[0]["uuid"])


def actuator(nova: cloud.Cloud, actions: list[dict[str, Any]]) -> str:
    """An auto-triggered audit of exactly ``actions`` (the actuator strategy); its plan."""
    body = {"goal": "unclassified", "strategy": "actuator", "parameters": {"actions": actions}}
    return audit(nova, body)


def maintenance(nova: cloud.Cloud, host: str) -> str:
    """An auto-triggered host_maintenance audit draining ``host``; its plan."""
    body = {
        "goal": "cluster_maintaining",
        "strategy": "host_maintenance",
        "parameters": {"maintenance_node": host},
    }
    return audit(nova, body)


def plan_state(nova: cloud.Cloud, plan: str) -> dict[str, Any]:
    return dict(nova.watcher.get(f"/v1/action_plans/{plan}", microversion=INFRA_OPTIM).json())


def actions_of(nova: cloud.Cloud, plan: str) -> list[dict[str, Any]]:
    path = f"/v1/actions/detail?action_plan_uuid={plan}"
    return list(nova.watcher.get(path, microversion=INFRA_OPTIM).json()["actions"])


def wait_for_plan(nova: cloud.Cloud, plan: str, applier: cloud.Applier) -> dict[str, Any]:
    deadline = time.monotonic() + PLAN_TIMEOUT_S
    while True:
        found = plan_state(nova, plan)
        if found["state"] in ENDED:
            return found
        assert applier.process.poll() is None, applier.log_tail()
        assert time.monotonic() < deadline, (found, actions_of(nova, plan), applier.log_tail())
        time.sleep(0.5)


def apply(nova: cloud.Cloud, plan: str, name: str) -> dict[str, Any]:
    """Run the plan with a new applier to its end; the plan as it ended."""
    applier = nova.start_applier(name, lease_seconds=LEASE_S, applier_options=APPLIER_OPTIONS)
    try:
        return wait_for_plan(nova, plan, applier)
    finally:
        applier.stop()


def migrate_action(server_id: str, source: str, destination: str) -> dict[str, Any]:
    return {
        "action_type": "migrate",
        "resource_id": server_id,
        "input_parameters": {
            "migration_type": "live",
            "source_node": source,
            "destination_node": destination,
        },
    }
