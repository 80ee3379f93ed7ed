"""Data for the console's browser tests, and a small HTTP client of the real server.

:func:`small_cloud` makes a few known trees through the API itself (traits,
aggregates, nested providers, usage from real allocations); :func:`many_trees`
writes thousands of providers straight into the database before the server
starts, for the first-paint measurement. :class:`Http` calls the server
with a token, as the console does.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any

import sqlalchemy
from sqlalchemy import insert, select

from placement.db import standard, tables

#: Aggregates of the small cloud.
AGG_A = "aaaaaaaa-0000-4000-8000-000000000001"
AGG_B = "bbbbbbbb-0000-4000-8000-000000000002"


@dataclass
class Http:
    """JSON calls of a running server, with ``X-Auth-Token``."""

    base: str
    token: str = "admin"

    def call(
        self, method: str, path: str, body: Any = None, version: str = "placement latest"
    ) -> tuple[int, Any]:
        headers = {
            "X-Auth-Token": self.token,
            "OpenStack-API-Version": version,
            "Accept": "application/json",
        }
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    def ok(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        status, data = self.call(method, path, body, **kwargs)
        assert status < 400, (method, path, status, data)
        return data

    def v1(self, method: str, path: str, body: Any = None) -> Any:
        return self.ok(method, path, body, version="infra-optim latest")

    def provider(self, name: str, parent: str | None = None, **inventories: dict) -> str:
        rp = str(uuid.uuid5(uuid.NAMESPACE_DNS, name))
        self.ok(
            "POST",
            "/resource_providers",
            {"name": name, "uuid": rp, "parent_provider_uuid": parent},
        )
        if inventories:
            self.ok(
                "PUT",
                f"/resource_providers/{rp}/inventories",
                {"resource_provider_generation": 0, "inventories": inventories},
            )
        return rp

    def link(self, rp: str, kind: str, *values: str) -> None:
        """Set the provider's ``traits`` or ``aggregates`` to ``values``."""
        generation = self.ok("GET", f"/resource_providers/{rp}")["generation"]
        self.ok(
            "PUT",
            f"/resource_providers/{rp}/{kind}",
            {"resource_provider_generation": generation, kind: list(values)},
        )

    def claim(self, allocations: dict[str, dict[str, int]]) -> str:
        consumer = str(uuid.uuid4())
        self.ok(
            "PUT",
            f"/allocations/{consumer}",
            {
                "allocations": {rp: {"resources": amounts} for rp, amounts in allocations.items()},
                "project_id": "project",
                "user_id": "user",
                "consumer_generation": None,
                "consumer_type": "INSTANCE",
            },
        )
        return consumer


def small_cloud(http: Http) -> dict[str, str]:
    """Four trees with known numbers; returns ``{name: uuid}`` (and ``consumer``).

    ``compute-1`` has two NUMA cells, one with a NIC below it; ``compute-2``
    is the fullest; ``compute-3`` alone has ``CUSTOM_GOLD`` and is alone in
    aggregate B; ``shared-storage`` shares disk through aggregate A.
    """
    http.ok("PUT", "/traits/CUSTOM_GOLD")
    ids: dict[str, str] = {}
    ids["compute-1"] = http.provider(
        "compute-1",
        MEMORY_MB={"total": 65536, "reserved": 2048, "allocation_ratio": 1.5},
        DISK_GB={"total": 1000},
    )
    ids["compute-1-numa0"] = http.provider(
        "compute-1-numa0", ids["compute-1"], VCPU={"total": 16, "allocation_ratio": 4.0}
    )
    ids["compute-1-numa1"] = http.provider(
        "compute-1-numa1", ids["compute-1"], VCPU={"total": 16, "reserved": 2}
    )
    ids["compute-1-nic"] = http.provider(
        "compute-1-nic", ids["compute-1-numa0"], SRIOV_NET_VF={"total": 8}
    )
    ids["compute-2"] = http.provider(
        "compute-2",
        VCPU={"total": 8, "allocation_ratio": 16.0},
        MEMORY_MB={"total": 32768},
        DISK_GB={"total": 500},
    )
    ids["compute-3"] = http.provider(
        "compute-3", VCPU={"total": 32}, MEMORY_MB={"total": 131072}, DISK_GB={"total": 2000}
    )
    ids["shared-storage"] = http.provider("shared-storage", DISK_GB={"total": 10000})
    http.link(ids["compute-1"], "traits", "HW_CPU_X86_AVX2")
    http.link(ids["compute-1-nic"], "traits", "HW_NIC_SRIOV")
    http.link(ids["compute-2"], "traits", "HW_CPU_X86_AVX2")
    http.link(ids["compute-3"], "traits", "CUSTOM_GOLD")
    http.link(ids["shared-storage"], "traits", "MISC_SHARES_VIA_AGGREGATE")
    for name in ("compute-1", "compute-2", "shared-storage"):
        http.link(ids[name], "aggregates", AGG_A)
    http.link(ids["compute-3"], "aggregates", AGG_B)
    http.claim(
        {
            ids["compute-1"]: {"MEMORY_MB": 4096},
            ids["compute-1-numa0"]: {"VCPU": 6},
            ids["compute-1-nic"]: {"SRIOV_NET_VF": 2},
        }
    )
    http.claim({ids["compute-1-numa1"]: {"VCPU": 3}, ids["shared-storage"]: {"DISK_GB": 250}})
    ids["consumer"] = http.claim({ids["compute-2"]: {"VCPU": 120, "MEMORY_MB": 30000}})
    http.claim({ids["compute-3"]: {"VCPU": 4, "MEMORY_MB": 8192, "DISK_GB": 100}})
    return ids


def many_trees(url: str, trees: int) -> int:
    """``trees`` hosts of four providers each (a root, two NUMA cells, a NIC)
    with inventories and usage, written in bulk; returns the provider count."""
    engine = sqlalchemy.create_engine(url)
    try:
        standard.sync_standard_names(engine)  # as the server would at start
        with engine.begin() as conn:
            classes = dict(
                conn.execute(
                    select(tables.resource_classes.c.name, tables.resource_classes.c.id)
                ).all()
            )
            providers, inventories, allocations = [], [], []
            for host in range(trees):
                root = host * 4 + 1
                shape = [(root, None, f"host-{host:05d}")] + [
                    (root + k, root if k < 3 else root + 1, f"host-{host:05d}-{part}")
                    for k, part in ((1, "numa0"), (2, "numa1"), (3, "nic"))
                ]
                for provider_id, parent, name in shape:
                    providers.append(
                        {
                            "id": provider_id,
                            "uuid": str(uuid.UUID(int=provider_id)),
                            "name": name,
                            "generation": 1,
                            "root_provider_id": root,
                            "parent_provider_id": parent,
                        }
                    )
                for provider_id, rc, total, used in (
                    (root, "MEMORY_MB", 262144, (host * 7919) % 262144),
                    (root, "DISK_GB", 4000, (host * 31) % 4000),
                    (root + 1, "VCPU", 32, host % 33),
                    (root + 2, "VCPU", 32, (host * 3) % 33),
                    (root + 3, "SRIOV_NET_VF", 16, host % 17),
                ):
                    inventories.append(
                        {
                            "resource_provider_id": provider_id,
                            "resource_class_id": classes[rc],
                            "total": total,
                            "reserved": 0,
                            "min_unit": 1,
                            "max_unit": total,
                            "step_size": 1,
                            "allocation_ratio": 1.0,
                        }
                    )
                    if used:
                        allocations.append(
                            {
                                "resource_provider_id": provider_id,
                                "resource_class_id": classes[rc],
                                "consumer_id": str(uuid.UUID(int=(1 << 80) + len(allocations))),
                                "used": used,
                            }
                        )
            conn.execute(insert(tables.resource_providers), providers)
            conn.execute(insert(tables.inventories), inventories)
            conn.execute(insert(tables.allocations), allocations)
        return len(providers)
    finally:
        engine.dispose()
