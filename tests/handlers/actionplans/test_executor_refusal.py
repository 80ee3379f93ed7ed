"""``POST /v1/audits`` checks the actions against what the configured executor performs.

A type the executor cannot perform is a 400 naming it when the audit is
created, and nothing is stored; the ``placement`` executor (the default)
performs every built-in type.
"""

from __future__ import annotations

import json

import pytest

from placement.actionplans.action_types import names
from tests import rig

NOVA = {"watcher_applier": {"executor": "nova"}}
NODE = "compute1"


def _actuator(*actions: dict) -> dict:
    return {
        "goal": "unclassified",
        "strategy": "actuator",
        "audit_type": "ONESHOT",
        "parameters": {"actions": list(actions)},
    }


def _power_off() -> dict:
    return {
        "action_type": names.CHANGE_NODE_POWER_STATE,
        "resource_id": NODE,
        "input_parameters": {"state": "off"},
    }


def _fault(body: dict) -> str:
    """Watcher's error: a JSON document in ``error_message``; its ``faultstring``."""
    return str(json.loads(body["error_message"])["faultstring"])


def _nop() -> dict:
    return {"action_type": names.NOP, "input_parameters": {"message": "hello"}}


@pytest.mark.parametrize(
    "action_type,action",
    [
        (names.CHANGE_NODE_POWER_STATE, _power_off()),
        (
            names.TURN_HOST_TO_ACPI_S3_STATE,
            {
                "action_type": names.TURN_HOST_TO_ACPI_S3_STATE,
                "resource_id": NODE,
                "input_parameters": {},
            },
        ),
        (
            names.VOLUME_MIGRATE,
            {
                "action_type": names.VOLUME_MIGRATE,
                "resource_id": "1f6b1f9a-3b1e-4c1e-8f0e-4a4c2b8e9d01",
                "input_parameters": {"migration_type": "migrate", "destination_node": NODE},
            },
        ),
    ],
)
def test_the_nova_executor_refuses_what_nova_cannot_do_when_the_audit_is_created(
    action_type, action
):
    with rig.placement_app("sqlite", **NOVA) as (app, _conf):
        status, body = rig.call(app, "POST", "/v1/audits", _actuator(_nop(), action))
        assert status == 400, body
        assert _fault(body) == (
            f"actions[1].action_type: action type '{action_type}' cannot be performed "
            "by the nova executor ([watcher_applier] executor)"
        )
        status, listed = rig.call(app, "GET", "/v1/audits")
        assert status == 200 and listed["audits"] == []


def test_the_nova_executor_accepts_what_it_performs():
    with rig.placement_app("sqlite", **NOVA) as (app, _conf):
        status, body = rig.call(app, "POST", "/v1/audits", _actuator(_nop()))
        assert status == 201, body


def test_the_placement_executor_performs_every_builtin_type():
    with rig.placement_app("sqlite") as (app, _conf):
        status, body = rig.call(app, "POST", "/v1/audits", _actuator(_power_off()))
        assert status == 201, body


def test_a_type_no_executor_knows_is_still_unknown():
    with rig.placement_app("sqlite", **NOVA) as (app, _conf):
        action = {"action_type": "reboot", "input_parameters": {}}
        status, body = rig.call(app, "POST", "/v1/audits", _actuator(action))
        assert status == 400
        assert _fault(body) == "actions[0].action_type: unknown action type 'reboot'"
