"""The ``nova`` executor when the cloud is not at its best: a real live migration in
flight while nova-api, Keystone or the cloud's RabbitMQ node restarts, nova-api gone
for longer than the action's bound, and the plan cancelled.

Each scenario live-migrates one server from compute1 to compute2 with an actuator
plan (Nova's fake driver takes five seconds over it), waits until Nova's migration
record says ``running``, and then brings the fault. What the plan says at its end must
be what Nova did.
"""

from __future__ import annotations

import time
from typing import Any

from tests.nova import cloud, plans
from tests.nova.plans import LEASE_S, SMALL

#: The applier's Nova options here: two quick retries, so a call gives up on a Nova
#: that is gone within a second or two and the wait's own looks carry on.
RETRIES = "nova_retries = 2\nnova_retry_backoff = 0.25\n"


def _migrating(
    nova: cloud.Cloud, small: str, name: str, timeout: float = 120
) -> tuple[str, str, cloud.Applier]:
    """A server live-migrating from compute1 to compute2 under an applier of ours,
    Nova's record of it ``running``: the server, the plan, the applier."""
    server = nova.boot(name, small, host="compute1")["id"]
    plan = plans.actuator(nova, [plans.migrate_action(server, "compute1", "compute2")])
    applier = nova.start_applier(
        f"applier-{name}",
        lease_seconds=LEASE_S,
        applier_options=f"migration_timeout = {timeout:g}\n{RETRIES}",
    )
    deadline = time.monotonic() + 60
    while not any(m["status"] == "running" for m in plans.migrations(nova, server)):
        assert time.monotonic() < deadline, (plans.actions_of(nova, plan), applier.log_tail())
        time.sleep(0.1)
    return server, plan, applier


def _ended(nova: cloud.Cloud, plan: str, applier: cloud.Applier) -> tuple[dict, dict[str, Any]]:
    """The plan at its end, and its one action."""
    try:
        ended = plans.wait_for_plan(nova, plan, applier)
    finally:
        applier.stop()
    (action,) = plans.actions_of(nova, plan)
    return ended, action


def _where(nova: cloud.Cloud, server: str) -> tuple[str, dict[str, dict[str, int]]]:
    """Where Nova says the server is, and where our Placement holds its resources."""
    return nova.server(server)["OS-EXT-SRV-ATTR:host"], plans.held(nova, server)


def test_nova_api_restarting_mid_migration_ends_as_nova_did(nova: cloud.Cloud, small: str):
    """nova-api is down for longer than many polls while Nova's compute moves the
    server: the action looks again until Nova answers, and SUCCEEDS, never FAILED."""
    server, plan, applier = _migrating(nova, small, "fault-api-restart")
    with nova.down("nova-api"):
        time.sleep(3)
    ended, action = _ended(nova, plan, applier)
    assert (ended["state"], action["state"]) == ("SUCCEEDED", "SUCCEEDED"), (ended, action)
    assert _where(nova, server) == ("compute2", {plans.providers(nova)["compute2"]: SMALL})
    assert "could not be reached" in applier.log.read_text()  # it was looked at meanwhile


def test_keystone_restarting_mid_migration_ends_as_nova_did(nova: cloud.Cloud, small: str):
    server, plan, applier = _migrating(nova, small, "fault-keystone-restart")
    with nova.down("keystone"):
        time.sleep(3)
    ended, action = _ended(nova, plan, applier)
    assert (ended["state"], action["state"]) == ("SUCCEEDED", "SUCCEEDED"), (ended, action)
    assert _where(nova, server) == ("compute2", {plans.providers(nova)["compute2"]: SMALL})


def test_nova_api_gone_past_the_bound_fails_saying_nova_could_not_be_reached(
    nova: cloud.Cloud, small: str
):
    """The action's bound (6 s) runs out while nova-api is down: FAILED, saying Nova
    could not be reached and that the server may have moved, which it did."""
    server, plan, applier = _migrating(nova, small, "fault-api-gone", timeout=6)
    with nova.down("nova-api"):
        ended, action = _ended(nova, plan, applier)
    assert (ended["state"], action["state"]) == ("FAILED", "FAILED"), (ended, action)
    message = action["status_message"]
    assert "Nova could not be reached to live migrate server" in message, message
    assert "the server may have moved" in message and "did not" not in message, message
    assert _where(nova, server) == ("compute2", {plans.providers(nova)["compute2"]: SMALL})


def test_a_cancel_aborts_the_live_migration_in_flight(nova: cloud.Cloud, small: str):
    """Cancelled while Nova runs the migration: Nova is asked to abort it, its record
    ends ``cancelled``, the server stays on compute1, and so do its allocations."""
    server, plan, applier = _migrating(nova, small, "fault-cancel")
    patch = [{"op": "replace", "path": "/state", "value": "CANCELLING"}]  # as `actionplan cancel`
    response = nova.watcher.patch(f"/v1/action_plans/{plan}", json=patch)
    assert response.status_code == 200, response.text
    ended, action = _ended(nova, plan, applier)
    assert (ended["state"], action["state"]) == ("CANCELLED", "CANCELLED"), (ended, action)
    assert "was aborted" in action["status_message"], action
    (record,) = plans.migrations(nova, server)
    assert record["status"] == "cancelled", record
    assert _where(nova, server) == ("compute1", {plans.providers(nova)["compute1"]: SMALL})


def test_the_broker_restarting_mid_migration_ends_as_nova_reports(nova: cloud.Cloud, small: str):
    """The cloud's own RabbitMQ node restarts while Nova's computes talk the migration
    through: whatever Nova's record of it then says, the plan says the same."""
    server, plan, applier = _migrating(nova, small, "fault-broker-restart", timeout=90)
    with nova.down("rabbitmq"):
        time.sleep(2)
    ended, action = _ended(nova, plan, applier)
    nova.wait_for_computes()  # the scenarios after this one need every compute back up
    record = max(plans.migrations(nova, server), key=lambda m: m["id"])
    if record["status"] == "completed":
        assert (ended["state"], action["state"]) == ("SUCCEEDED", "SUCCEEDED"), (ended, action)
        assert _where(nova, server) == ("compute2", {plans.providers(nova)["compute2"]: SMALL})
    else:  # the move was lost with the broker: FAILED, in Nova's words
        assert (ended["state"], action["state"]) == ("FAILED", "FAILED"), (record, action)
        assert record["status"] in action["status_message"] or "did not" in action["status_message"]
