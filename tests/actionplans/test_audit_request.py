"""The audit request as one typed value: null is "not given", the defaults live there."""

from __future__ import annotations

import dataclasses

import pytest

from placement.actionplans import audit_types
from placement.actionplans.audit_request import AuditRequest, given

#: watcher-tempest-plugin's body for every audit it creates.
TEMPEST = {
    "audit_template_uuid": "6e1e6c8d-1f2a-4b55-9b9b-2f8d1b0c1a11",
    "audit_type": "ONESHOT",
    "interval": None,
    "parameters": None,
    "name": None,
}


def test_null_attributes_are_not_given() -> None:
    assert given({"goal": "dummy", "name": None, "force": False}) == {
        "goal": "dummy",
        "force": False,
    }


def test_a_null_attribute_takes_the_default() -> None:
    assert AuditRequest.from_body(TEMPEST) == AuditRequest(
        audit_type="ONESHOT", audit_template_uuid=TEMPEST["audit_template_uuid"]
    )


def test_the_defaults() -> None:
    request = AuditRequest(audit_type=audit_types.ONESHOT, goal="dummy")
    assert (request.name, request.strategy, request.interval) == (None, None, None)
    assert (request.parameters, request.scope) == ({}, ())
    assert (request.auto_trigger, request.force) == (False, False)
    assert (request.start_time, request.end_time) == (None, None)


def test_every_null_is_the_same_request_as_none_given() -> None:
    nulls = {field.name: None for field in dataclasses.fields(AuditRequest)}
    body = {**nulls, "audit_type": "EVENT", "goal": "dummy"}
    assert AuditRequest.from_body(body) == AuditRequest(audit_type="EVENT", goal="dummy")


def test_the_request_is_frozen() -> None:
    request = AuditRequest(audit_type="ONESHOT", goal="dummy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.goal = "other"  # type: ignore[misc]


def test_the_audit_types_in_upstream_order() -> None:
    assert audit_types.ALL == ("ONESHOT", "CONTINUOUS", "EVENT")
