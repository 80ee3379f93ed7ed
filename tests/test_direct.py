"""PlacementDirect: the whole API in-process, with no server and no socket."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import make_url

from placement import conf as placement_conf
from placement import microversion as mv
from placement.direct import PlacementDirect
from tests import rig
from tests.apiclient import new_uuid


@pytest.fixture
def conf(backend: str) -> Iterator:
    """A caller-filled configuration on a fresh, migrated database."""
    with rig.fresh_database(backend) as url:
        rig.migrated(url)
        conf = placement_conf.load([], default_config_files=[])
        conf.set_override("connection", url, group="placement_database")
        yield conf


@pytest.fixture
def no_sockets(conf, monkeypatch):
    """Any network connection other than to the database fails the test."""
    url = make_url(conf.placement_database.connection)
    connect = socket.socket.connect

    def database_only(sock, address):
        if not (isinstance(address, tuple) and address[1:2] == (url.port,)):
            raise AssertionError(f"PlacementDirect connected to {address}")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", database_only)


def test_reshape_moves_allocated_vgpu_to_a_new_child(conf, no_sockets):
    consumer = new_uuid()
    with PlacementDirect(conf, latest_microversion=True) as client:
        root = client.post("/resource_providers", json={"name": "compute1"}).json()["uuid"]
        client.put(
            f"/resource_providers/{root}/inventories",
            json={
                "resource_provider_generation": 0,
                "inventories": {"VCPU": {"total": 8}, "VGPU": {"total": 4}},
            },
        )
        resp = client.put(
            f"/allocations/{consumer}",
            json={
                "allocations": {root: {"resources": {"VCPU": 2, "VGPU": 1}}},
                "project_id": "p",
                "user_id": "u",
                "consumer_generation": None,
                "consumer_type": "INSTANCE",
            },
        )
        assert resp.status_code == 204
        child = client.post(
            "/resource_providers", json={"name": "compute1_pgpu0", "parent_provider_uuid": root}
        ).json()["uuid"]

        resp = client.post(
            "/reshaper",
            json={
                "inventories": {
                    root: {
                        "resource_provider_generation": 2,
                        "inventories": {"VCPU": {"total": 8}},
                    },
                    child: {
                        "resource_provider_generation": 0,
                        "inventories": {"VGPU": {"total": 4}},
                    },
                },
                "allocations": {
                    consumer: {
                        "allocations": {
                            root: {"resources": {"VCPU": 2}},
                            child: {"resources": {"VGPU": 1}},
                        },
                        "project_id": "p",
                        "user_id": "u",
                        "consumer_generation": 1,
                        "consumer_type": "INSTANCE",
                    }
                },
            },
        )
        assert resp.status_code == 204, resp.text

        inventories = client.get(f"/resource_providers/{root}/inventories").json()
        assert list(inventories["inventories"]) == ["VCPU"]
        assert client.get(f"/resource_providers/{child}/usages").json()["usages"] == {"VGPU": 1}
        held = client.get(f"/allocations/{consumer}").json()
        assert held["allocations"][root]["resources"] == {"VCPU": 2}
        assert held["allocations"][child]["resources"] == {"VGPU": 1}
        assert held["consumer_generation"] == 2


def test_defaults_to_the_base_microversion(conf, no_sockets):
    with PlacementDirect(conf) as client:
        resp = client.get("/")
        assert resp.headers["OpenStack-API-Version"] == "placement 1.0"
        assert client.get("/", version="1.30").headers["openstack-api-version"] == "placement 1.30"
    with PlacementDirect(conf, latest_microversion=True) as client:
        assert client.get("/").headers.get("openstack-api-version") == f"placement {mv.MAX_VERSION}"


def test_links_and_locations_carry_the_mount_prefix(conf, no_sockets):
    with PlacementDirect(conf, latest_microversion=True) as client:
        resp = client.post("/resource_providers", json={"name": "prefixed"})
        assert resp.status_code == 200
        rp = resp.json()
        assert resp.headers["location"].endswith(f"/placement/resource_providers/{rp['uuid']}")
        assert rp["links"][0]["href"] == f"/placement/resource_providers/{rp['uuid']}"
        # A URL that already carries the prefix is the same URL.
        assert client.get(f"/placement/resource_providers/{rp['uuid']}").status_code == 200


def test_errors_come_back_as_responses(conf, no_sockets):
    with PlacementDirect(conf, latest_microversion=True) as client:
        resp = client.get(f"/resource_providers/{new_uuid()}")
        assert resp.status_code == 404
        assert resp.json()["errors"][0]["status"] == 404
        assert "could not be found" in resp.text
        resp = client.put(
            f"/allocations/{new_uuid()}",
            json={"allocations": {}},
            headers={"Content-Type": "text/plain"},
        )
        assert resp.status_code == 415


def test_auth_strategy_is_forced_to_noauth2(conf):
    conf.set_override("auth_strategy", "keystone", group="api")
    with PlacementDirect(conf) as client:
        assert client.get("/resource_providers").status_code == 200
