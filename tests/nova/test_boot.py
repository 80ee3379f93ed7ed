"""Nova boots servers through our allocation candidates and claims.

Thirty servers go one by one through Nova's API onto three fake computes;
afterwards our usages of each compute node's provider equal what Nova itself
counts on that host, grew by exactly the servers booted there, and each
server's allocations sit on its host's provider.
"""

from __future__ import annotations

import collections

from keystoneauth1.adapter import Adapter

from tests.nova import cloud

SERVERS = 30
VCPUS, RAM_MB, DISK_GB = 1, 512, 1
FLAVOR_RESOURCES = {"VCPU": VCPUS, "MEMORY_MB": RAM_MB, "DISK_GB": DISK_GB}


def _usages(placement: Adapter, provider: str) -> dict[str, int]:
    return dict(placement.get(f"/resource_providers/{provider}/usages").json()["usages"])


def test_nova_boots_thirty_servers_through_our_placement(nova_cloud: cloud.Cloud) -> None:
    placement = nova_cloud.placement
    # The session's cloud may hold servers of scenarios run before on this worker:
    # what our servers add is compared, and the totals with Nova's own.
    before = {
        h["hypervisor_hostname"]: _usages(placement, h["id"]) for h in nova_cloud.hypervisors()
    }
    flavor = nova_cloud.create_flavor("boot-small", VCPUS, RAM_MB, DISK_GB)
    servers = [nova_cloud.boot(f"boot-{i:02d}", flavor) for i in range(SERVERS)]

    providers = {
        provider["name"]: provider["uuid"]
        for provider in placement.get("/resource_providers").json()["resource_providers"]
    }
    hypervisors = nova_cloud.hypervisors()  # with Nova's usage of each
    # Each compute node is its own provider, named after it, with its uuid.
    assert {h["hypervisor_hostname"]: h["id"] for h in hypervisors} == providers
    assert set(providers) == set(nova_cloud.hosts)

    hosts = [server["OS-EXT-SRV-ATTR:host"] for server in servers]
    per_host = collections.Counter(hosts)
    assert set(per_host) == set(nova_cloud.hosts), per_host  # spread over every compute

    for hypervisor in hypervisors:
        host, count = hypervisor["hypervisor_hostname"], per_host[hypervisor["hypervisor_hostname"]]
        usages = _usages(placement, hypervisor["id"])
        added = {rc: usages.get(rc, 0) - before[host].get(rc, 0) for rc in usages}
        assert added == {rc: amount * count for rc, amount in FLAVOR_RESOURCES.items()}, host
        reserved = placement.get(
            f"/resource_providers/{hypervisor['id']}/inventories/MEMORY_MB"
        ).json()["reserved"]
        nova_view = {
            "VCPU": hypervisor["vcpus_used"],
            "MEMORY_MB": hypervisor["memory_mb_used"] - reserved,
            "DISK_GB": hypervisor["local_gb_used"],
        }
        assert usages == nova_view, host

    for server, host in zip(servers, hosts, strict=True):
        allocations = placement.get(f"/allocations/{server['id']}").json()["allocations"]
        assert {rp: alloc["resources"] for rp, alloc in allocations.items()} == {
            providers[host]: FLAVOR_RESOURCES
        }, server["id"]
