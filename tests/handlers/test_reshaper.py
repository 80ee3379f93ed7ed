"""Who may reshape: the service role only, by default (admin alone may not)."""

from __future__ import annotations

from tests.apiclient import error


def _reshape(api, roles: str):
    rp = api.provider(VCPU={"total": 8})
    return api.post(
        "/reshaper",
        json={
            "inventories": {
                rp: {"resource_provider_generation": 1, "inventories": {"VCPU": {"total": 4}}}
            },
            "allocations": {},
        },
        version="1.30",
        headers={"X-Roles": roles},
    )


def test_admin_alone_may_not_reshape(api):
    status, _, detail = error(_reshape(api, "admin"))
    assert status == 403
    assert "Policy does not allow placement:reshaper:reshape to be performed." in detail


def test_service_may_reshape(api):
    assert _reshape(api, "service").status_code == 204


def test_admin_may_write_allocations(api):
    rp = api.provider(VCPU={"total": 8})
    resp = api.post(
        "/allocations",
        json={
            "a2b3c4d5-0000-4000-8000-000000000001": {
                "allocations": {rp: {"resources": {"VCPU": 1}}},
                "project_id": "p",
                "user_id": "u",
                "consumer_generation": None,
                "consumer_type": "INSTANCE",
            }
        },
        version="1.38",
        headers={"X-Roles": "admin"},
    )
    assert resp.status_code == 204
