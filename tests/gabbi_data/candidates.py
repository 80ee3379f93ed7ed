"""Provider worlds for the allocation-candidates stories.

Each fixture seeds one environment through the public API and exports
``<NAME>_UUID`` for every provider it makes (plus aggregate uuids), so the
YAML files can name them. Five model the data upstream's own candidate
tests use; the ``Case*`` ones are the environments of the "Modeling with
Provider Trees" case studies.
"""

from __future__ import annotations

import os
import uuid

from tests.gabbi_fixtures import api_call

SHARES = "MISC_SHARES_VIA_AGGREGATE"


class _World:
    """Seeds providers with inventories, traits and aggregates."""

    def __init__(self, app) -> None:
        self.app = app
        self.aggregates: dict[str, str] = {}

    def aggregate(self, name: str) -> str:
        """The uuid of aggregate ``name``, exported as ``<NAME>_UUID``."""
        if name not in self.aggregates:
            self.aggregates[name] = _export(f"{name}_UUID")
        return self.aggregates[name]

    def provider(
        self, name: str, parent: str | None = None, *, aggregates=(), traits=(), **inventories
    ) -> str:
        """Create ``name`` (exported as ``<NAME>_UUID``); inventories are
        ``CLASS=total`` or ``CLASS={"total": …, …}``."""
        rp = _export(f"{name.upper()}_UUID")
        api_call(
            self.app,
            "POST",
            "/resource_providers",
            {"name": name, "uuid": rp, "parent_provider_uuid": parent},
            version="1.20",
        )
        generation = 0
        if inventories:
            records = {
                rc: value if isinstance(value, dict) else {"total": value}
                for rc, value in inventories.items()
            }
            for rc in records:
                if rc.startswith("CUSTOM_"):
                    api_call(self.app, "PUT", f"/resource_classes/{rc}", version="1.7")
            _, body = api_call(
                self.app,
                "PUT",
                f"/resource_providers/{rp}/inventories",
                {"resource_provider_generation": generation, "inventories": records},
            )
            generation = body["resource_provider_generation"]
        if traits:
            for trait in traits:
                if trait.startswith("CUSTOM_"):
                    api_call(self.app, "PUT", f"/traits/{trait}")
            _, body = api_call(
                self.app,
                "PUT",
                f"/resource_providers/{rp}/traits",
                {"resource_provider_generation": generation, "traits": list(traits)},
            )
            generation = body["resource_provider_generation"]
        if aggregates:
            api_call(
                self.app,
                "PUT",
                f"/resource_providers/{rp}/aggregates",
                {
                    "resource_provider_generation": generation,
                    "aggregates": [self.aggregate(a) for a in aggregates],
                },
            )
        return rp

    def consume(self, provider: str, **amounts: int) -> None:
        """A new consumer holding ``amounts`` on ``provider``."""
        api_call(
            self.app,
            "PUT",
            f"/allocations/{uuid.uuid4()}",
            {
                "allocations": {provider: {"resources": amounts}},
                "project_id": os.environ["PROJECT_ID"],
                "user_id": os.environ["USER_ID"],
                "consumer_generation": None,
            },
            version="1.28",
        )


def _export(name: str) -> str:
    os.environ[name] = str(uuid.uuid4())
    return os.environ[name]


# --- the data of upstream's candidate tests ---------------------------------------


def shared_storage(world: _World) -> None:
    """cn1 and cn2 (VCPU, MEMORY_MB; cn2 also DISK_GB) each with two NUMA
    children holding a PF (SRIOV_NET_VF 8); ss and ss2 share DISK_GB; all
    four roots in one aggregate. cn1 has SSE and SSE2."""
    for cn in ("cn1", "cn2"):
        disk = {"DISK_GB": {"total": 2000, "reserved": 100}} if cn == "cn2" else {}
        traits = ("HW_CPU_X86_SSE", "HW_CPU_X86_SSE2") if cn == "cn1" else ()
        root = world.provider(
            cn,
            aggregates=["AGG"],
            traits=traits,
            VCPU={"total": 24, "allocation_ratio": 16.0},
            MEMORY_MB={"total": 131072, "allocation_ratio": 1.5},
            **disk,
        )
        for n in (1, 2):
            numa = world.provider(f"numa{cn[-1]}_{n}", root)
            world.provider(f"pf{cn[-1]}_{n}", numa, SRIOV_NET_VF=8)
    for ss in ("ss", "ss2"):
        world.provider(
            ss, aggregates=["AGG"], traits=[SHARES], DISK_GB={"total": 2000, "reserved": 100}
        )


def numa_aggregates(world: _World) -> None:
    """cn1 (aggA) and cn2 (aggA, aggB) without inventory, each with two NUMA
    children of VCPU 24 x16; numa1_1 is in aggC; ss1 (aggA) and ss2 (aggC)
    share DISK_GB."""
    cn1 = world.provider("cn1", aggregates=["AGGA"])
    cn2 = world.provider("cn2", aggregates=["AGGA", "AGGB"])
    for name, aggs in (("ss1", ["AGGA"]), ("ss2", ["AGGC"])):
        world.provider(
            name, aggregates=aggs, traits=[SHARES], DISK_GB={"total": 2000, "reserved": 100}
        )
    vcpu = {"total": 24, "allocation_ratio": 16.0}
    world.provider("numa1_1", cn1, aggregates=["AGGC"], VCPU=vcpu)
    world.provider("numa1_2", cn1, VCPU=vcpu)
    world.provider("numa2_1", cn2, VCPU=vcpu)
    world.provider("numa2_2", cn2, VCPU=vcpu)


def numa_network(world: _World, cn1: str | None = None, cn2: str | None = None) -> None:
    """A compute host cn1 with NUMA nodes, accelerators and network agents,
    cn2 with NICs and PFs, and ss1 sharing DISK_GB, all in aggA."""
    world.provider("ss1", aggregates=["AGGA"], traits=[SHARES], DISK_GB=2000)
    cn1 = cn1 or world.provider("cn1")
    api_call(
        world.app,
        "PUT",
        f"/resource_providers/{cn1}/aggregates",
        [world.aggregate("AGGA")],
        version="1.1",
    )
    api_call(
        world.app,
        "PUT",
        f"/resource_providers/{cn1}/traits",
        {"resource_provider_generation": 0, "traits": ["COMPUTE_VOLUME_MULTI_ATTACH"]},
    )
    os.environ["CN1_UUID"] = cn1
    numa0 = world.provider(
        "numa0",
        cn1,
        traits=["HW_NUMA_ROOT"],
        VCPU=4,
        MEMORY_MB={"total": 2048, "min_unit": 512, "step_size": 256},
    )
    numa1 = world.provider(
        "numa1",
        cn1,
        traits=["HW_NUMA_ROOT", "CUSTOM_FOO"],
        VCPU=4,
        MEMORY_MB={"total": 2048, "min_unit": 256, "max_unit": 1024},
    )
    world.consume(numa0, VCPU=2)
    world.provider("fpga0", numa0, FPGA=1)
    world.provider("pgpu0", numa0, VGPU=8)
    world.provider("fpga1_0", numa1, FPGA=1)
    world.provider("fpga1_1", numa1, FPGA=1)
    sriov = world.provider("sriov_agent", cn1, traits=["CUSTOM_VNIC_TYPE_DIRECT"])
    world.provider("esn1", sriov, traits=["CUSTOM_PHYSNET1"], NET_BW_EGR_KILOBIT_PER_SEC=10000)
    world.provider("esn2", sriov, traits=["CUSTOM_PHYSNET2"], NET_BW_EGR_KILOBIT_PER_SEC=20000)
    ovs = world.provider("ovs_agent", cn1, traits=["CUSTOM_VNIC_TYPE_NORMAL"])
    world.provider("br_int", ovs, traits=["CUSTOM_PHYSNET0"], NET_BW_EGR_KILOBIT_PER_SEC=1000)
    cn2 = cn2 or world.provider("cn2")
    api_call(
        world.app,
        "PUT",
        f"/resource_providers/{cn2}/aggregates",
        [world.aggregate("AGGA")],
        version="1.1",
    )
    api_call(
        world.app,
        "PUT",
        f"/resource_providers/{cn2}/inventories",
        {
            "resource_provider_generation": 0,
            "inventories": {
                "VCPU": {"total": 8},
                "MEMORY_MB": {"total": 2048, "min_unit": 1024, "step_size": 128},
                "DISK_GB": {"total": 1000},
            },
        },
    )
    api_call(
        world.app,
        "PUT",
        f"/resource_providers/{cn2}/traits",
        {"resource_provider_generation": 1, "traits": ["CUSTOM_FOO"]},
    )
    os.environ["CN2_UUID"] = cn2
    world.consume(cn2, VCPU=3)
    nics = [world.provider(f"nic{n}", cn2, traits=["CUSTOM_HW_NIC_ROOT"]) for n in (1, 2, 3)]
    for nic, name, physnet, vfs in (
        (0, "1_1", 1, 4),
        (0, "1_2", 2, 4),
        (1, "2_1", 1, 2),
        (1, "2_2", 2, 2),
        (1, "2_3", 1, 2),
        (1, "2_4", 2, 2),
        (2, "3_1", 1, 8),
    ):
        world.provider(f"pf{name}", nics[nic], traits=[f"CUSTOM_PHYSNET{physnet}"], CUSTOM_VF=vfs)


def deep_numa_network(world: _World) -> None:
    """:func:`numa_network` with cn1 and cn2 two levels below a root gp1."""
    gp1 = world.provider("gp1")
    p1, p2 = world.provider("p1", gp1), world.provider("p2", gp1)
    numa_network(world, world.provider("cn1", p1), world.provider("cn2", p2))


def granular(world: _World) -> None:
    """cn_left (aggA), cn_middle (aggA+B), cn_right (aggB+C) and the sharing
    shr_disk_1 (aggA, SSD), shr_disk_2 (aggA+B) and shr_net (aggC)."""
    world.provider(
        "cn_left",
        aggregates=["AGGA"],
        traits=[
            "HW_CPU_X86_AVX",
            "HW_CPU_X86_AVX2",
            "HW_GPU_API_DXVA",
            "HW_NIC_DCB_PFC",
            "CUSTOM_FOO",
        ],
        VCPU=8,
        MEMORY_MB=4096,
        DISK_GB=500,
        VGPU=8,
        SRIOV_NET_VF=8,
        CUSTOM_NET_MBPS=4000,
    )
    world.provider(
        "cn_middle",
        aggregates=["AGGA", "AGGB"],
        traits=["HW_CPU_X86_AVX", "HW_CPU_X86_AVX2", "HW_CPU_X86_SSE", "HW_NIC_ACCEL_TLS"],
        VCPU=8,
        MEMORY_MB=4096,
        SRIOV_NET_VF=8,
        CUSTOM_NET_MBPS=4000,
    )
    world.provider(
        "cn_right",
        aggregates=["AGGB", "AGGC"],
        traits=["HW_CPU_X86_MMX", "HW_GPU_API_DXVA", "CUSTOM_DISK_SSD"],
        VCPU=8,
        MEMORY_MB=4096,
        DISK_GB=500,
        VGPU={"total": 8, "max_unit": 2},
    )
    world.provider(
        "shr_disk_1", aggregates=["AGGA"], traits=[SHARES, "CUSTOM_DISK_SSD"], DISK_GB=1000
    )
    world.provider("shr_disk_2", aggregates=["AGGA", "AGGB"], traits=[SHARES], DISK_GB=1000)
    world.provider(
        "shr_net", aggregates=["AGGC"], traits=[SHARES], SRIOV_NET_VF=16, CUSTOM_NET_MBPS=40000
    )


def non_shared_storage(world: _World) -> None:
    """cn1..cn3, each with its own VCPU, MEMORY_MB and DISK_GB, no aggregates
    (AGGA/B/C_UUID are exported for the story to use)."""
    for name in ("AGGA", "AGGB", "AGGC"):
        world.aggregate(name)
    for n in (1, 2, 3):
        world.provider(f"cn{n}", VCPU=24, MEMORY_MB=131072, DISK_GB=2000)


# --- the "Modeling with Provider Trees" case studies ------------------------------


def case_sharing(world: _World) -> None:
    """SS1 shares DISK_GB through aggA with CN1; SS2 shares with nobody; CN1
    and CN2 hold VCPU, MEMORY_MB and DISK_GB themselves."""
    world.provider("ss1", aggregates=["AGGA"], traits=[SHARES], DISK_GB=1000)
    world.provider("ss2", traits=[SHARES], DISK_GB=1000)
    world.provider("cn1", aggregates=["AGGA"], VCPU=8, MEMORY_MB=1024, DISK_GB=1000)
    world.provider("cn2", VCPU=8, MEMORY_MB=1024, DISK_GB=1000)


def case_numa_sharing(world: _World) -> None:
    """SS1 (aggA) shares DISK_GB; CN1 (aggA, aggB) and CN2 (aggA) hold
    MEMORY_MB and DISK_GB, their NUMA children VCPU; NUMA2_1 is in aggB."""
    world.provider("ss1", aggregates=["AGGA"], traits=[SHARES], DISK_GB=1000)
    cn1 = world.provider("cn1", aggregates=["AGGA", "AGGB"], MEMORY_MB=1024, DISK_GB=1000)
    cn2 = world.provider("cn2", aggregates=["AGGA"], MEMORY_MB=1024, DISK_GB=1000)
    world.provider("numa1_1", cn1, VCPU=8)
    world.provider("numa1_2", cn1, VCPU=8)
    world.provider("numa2_1", cn2, aggregates=["AGGB"], VCPU=8)
    world.provider("numa2_2", cn2, VCPU=8)


def case_nic_traits(world: _World) -> None:
    """CN1 with two NICs of SRIOV_NET_VF 8; only NIC1_1 has HW_NIC_ACCEL_SSL."""
    cn1 = world.provider("cn1", VCPU=8, MEMORY_MB=1024, DISK_GB=1000)
    world.provider("nic1_1", cn1, traits=["HW_NIC_ACCEL_SSL"], SRIOV_NET_VF=8)
    world.provider("nic1_2", cn1, SRIOV_NET_VF=8)


def case_trees(world: _World) -> None:
    """SS1 and SS2 share DISK_GB with CN1 and CN2 (all in aggA); each CN has
    DISK_GB and two NUMA children with VCPU 4."""
    for ss in ("ss1", "ss2"):
        world.provider(ss, aggregates=["AGGA"], traits=[SHARES], DISK_GB=1000)
    for n in (1, 2):
        cn = world.provider(f"cn{n}", aggregates=["AGGA"], DISK_GB=1000)
        world.provider(f"numa{n}_1", cn, VCPU=4)
        world.provider(f"numa{n}_2", cn, VCPU=4)


def diagnostics(world: _World) -> None:
    """For the "why no candidate?" stories: cn1 (VCPU 4 with 3 used;
    MEMORY_MB 2048 with min_unit 256, max_unit 1024, step_size 256;
    HW_CPU_X86_AVX; AGG1), cn2 (VCPU 8; AGG2), host (numa0 and numa1 with
    VCPU 2 each, nic with SRIOV_NET_VF 4) and shr (sharing DISK_GB 100 in
    AGG3, with nobody else)."""
    cn1 = world.provider(
        "cn1",
        aggregates=["AGG1"],
        traits=["HW_CPU_X86_AVX"],
        VCPU=4,
        MEMORY_MB={"total": 2048, "min_unit": 256, "max_unit": 1024, "step_size": 256},
    )
    world.consume(cn1, VCPU=3)
    world.provider("cn2", aggregates=["AGG2"], VCPU=8)
    host = world.provider("host")
    world.provider("numa0", host, VCPU=2)
    world.provider("numa1", host, VCPU=2)
    world.provider("nic", host, SRIOV_NET_VF=4)
    world.provider("shr", aggregates=["AGG3"], traits=[SHARES], DISK_GB=100)


_WORLDS = {
    "SharedStorageFixture": shared_storage,
    "NUMAAggregateFixture": numa_aggregates,
    "NUMANetworkFixture": numa_network,
    "DeepNUMANetworkFixture": deep_numa_network,
    "GranularFixture": granular,
    "NonSharedStorageFixture": non_shared_storage,
    "CaseSharingFixture": case_sharing,
    "CaseNUMASharingFixture": case_numa_sharing,
    "CaseNICTraitsFixture": case_nic_traits,
    "CaseTreesFixture": case_trees,
    "DiagnosticsFixture": diagnostics,
}


#: Fixtures seeding :func:`case_trees` under non-default ``[placement]`` options.
_CONFIGURED = {
    "CaseTreesCappedFixture": {"max_allocation_candidates": 2},
    "CaseTreesBreadthFirstFixture": {
        "max_allocation_candidates": 2,
        "allocation_candidates_generation_strategy": "breadth-first",
    },
    "CaseTreesRandomFixture": {"randomize_allocation_candidates": True},
}


def fixtures(api_fixture: type) -> list[type]:
    def seed(self, app) -> None:
        type(self).build(_World(app))

    made = [
        type(
            name,
            (api_fixture,),
            {"seed": seed, "build": staticmethod(build), "__doc__": build.__doc__},
        )
        for name, build in _WORLDS.items()
    ]
    made += [
        type(
            name,
            (api_fixture,),
            {
                "seed": seed,
                "build": staticmethod(case_trees),
                "overrides": {"placement": options},
                "__doc__": f"{case_trees.__doc__} Options: {options}",
            },
        )
        for name, options in _CONFIGURED.items()
    ]
    return made
