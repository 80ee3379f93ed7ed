"""``POST /v1/audits`` at the handler's door: the body becomes an AuditRequest."""

from __future__ import annotations

import datetime

import pytest

from placement import errors
from placement import microversion as mv
from placement.actionplans.audit_request import AuditRequest
from placement.handlers.actionplans.audit_body import audit_request

LATEST = mv.Version(1, 7)


def test_a_body_becomes_one_typed_request_with_its_schedule_checked() -> None:
    body = {
        "audit_type": "CONTINUOUS",
        "goal": "dummy",
        "interval": "3600",
        "start_time": "2030-01-01T00:00:00",
        "end_time": None,
        "name": None,
        "parameters": None,
        "force": None,
    }
    assert audit_request(body, LATEST) == AuditRequest(
        audit_type="CONTINUOUS",
        goal="dummy",
        interval="3600",
        start_time=datetime.datetime(2030, 1, 1),
    )


def test_tempest_body_is_a_template_request() -> None:
    uuid = "6e1e6c8d-1f2a-4b55-9b9b-2f8d1b0c1a11"
    body = {"audit_template_uuid": uuid, "audit_type": "ONESHOT", "interval": None}
    body.update(parameters=None, name=None)
    assert audit_request(body, LATEST) == AuditRequest(
        audit_type="ONESHOT", audit_template_uuid=uuid
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"audit_type": None, "goal": "dummy"}, "Audit type None could not be found"),
        ({"audit_type": "ONESHOT", "goal": None}, "A valid goal or audit_template_id"),
        (
            {"audit_type": "CONTINUOUS", "goal": "dummy", "interval": None},
            "Interval of audit must be specified for CONTINUOUS.",
        ),
    ],
)
def test_a_null_is_refused_as_the_attribute_missing(body: dict, message: str) -> None:
    with pytest.raises(errors.BadRequest, match=message):
        audit_request(body, LATEST)
