"""Concurrent starts of one plan over HTTP: exactly one wins, the others get 400."""

from __future__ import annotations

import json

from tests import rig

HEADERS = {
    "X-Auth-Token": "admin",
    "Accept": "application/json",
    "Content-Type": "application/json",
    "OpenStack-API-Version": "infra-optim 1.5",
}
AUDIT = {
    "audit_type": "ONESHOT",
    "goal": "unclassified",
    "strategy": "actuator",
    "parameters": {"actions": [{"action_type": "nop", "input_parameters": {"message": "x"}}]},
}


def _call(app, method: str, path: str, body: object = None) -> rig.Reply:
    data = b"" if body is None else json.dumps(body).encode()
    return rig.request(app, method, path, HEADERS, data)


def test_one_start_wins(app):
    audit = _call(app, "POST", "/v1/audits", AUDIT).json()
    plans = _call(app, "GET", f"/v1/action_plans?audit_uuid={audit['uuid']}").json()
    plan = plans["action_plans"][0]["uuid"]

    replies = rig.run_together(4, lambda _: _call(app, "POST", f"/v1/action_plans/{plan}/start"))

    assert sorted(reply.status for reply in replies) == [200, 400, 400, 400]
    for reply in replies:
        if reply.status == 400:
            fault = json.loads(reply.json()["error_message"])
            assert fault["faultstring"] == "Couldn't start when state is 'PENDING'."
    assert _call(app, "GET", f"/v1/action_plans/{plan}").json()["state"] == "PENDING"
