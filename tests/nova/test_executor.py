"""The ``nova`` executor against a real Nova: our applier moves real servers.

Each scenario creates an audit through our ``/v1`` API (served by the cloud's
Placement, ``executor = nova``), starts a ``placement-applier`` with
``executor = nova`` reaching Nova through Keystone (``Cloud.start_applier``),
and checks what Nova and our Placement show afterwards:

* host_maintenance, asked with ``openstack optimize audit create`` through
  Keystone's catalog, drains a compute: migrations the plan puts side by side
  run at the same time, its servers elsewhere in the same status
  (a stopped one migrated cold although planned live), its compute service
  disabled with the reason, their allocations on their new hosts' providers,
  nothing left on the drained node nor on migration consumers;
* an applier SIGKILLed as soon as a migrate's request is recorded (the live
  migration then in flight or about to be asked): the next applier takes the
  plan over once the lease runs out, reconciles from Nova's state, and every
  server is migrated exactly once;
* a migration Nova refuses (destination's compute service disabled): that
  action FAILED with Nova's message, its descendant CANCELLED, an independent
  action SUCCEEDED;
* a resize by flavor name: the server on the new flavor, its allocations too;
* node_resource_consolidation with Nova's scheduler choosing the destinations;
* ``basic`` planned on load pushed into the cloud's Prometheus (as
  watcher-tempest-plugin pushes it): the idle compute's servers live-migrated to
  the loaded one, the idle compute's service disabled.

The scenarios share the session's cloud (and ``test_boot``'s servers when on
the same worker): they count what was on a host, not totals, and each enables
every compute service again when it ends.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from tests import prometheus
from tests.nova import cloud, plans
from tests.nova.plans import APPLIER_OPTIONS, LEASE_S, MEDIUM, RAM_MB, SMALL


@dataclass(frozen=True)
class _Before:
    """What Nova showed of a host's servers before a plan: each one's status and
    newest migration record id."""

    status: dict[str, str]
    newest_migration: dict[str, int]


def _before(nova: cloud.Cloud, host: str) -> _Before:
    servers = plans.servers_on(nova, host)
    return _Before(
        status={s: nova.server(s)["status"] for s in servers},
        newest_migration={
            s: max((m["id"] for m in plans.migrations(nova, s)), default=0) for s in servers
        },
    )


#: The migration record a server's move leaves, by its status: a running server is
#: live-migrated, a stopped one cold-migrated (and confirmed) even when planned live.
MOVED_BY = {"ACTIVE": ("completed", "live-migration"), "SHUTOFF": ("confirmed", "migration")}


def _assert_drained(nova: cloud.Cloud, hosts: list[str], reason: str, before: _Before) -> None:
    """Every server that was on ``hosts`` elsewhere in the same status, each moved by
    exactly one new migration record, allocations following them, the nodes empty
    and disabled with ``reason``, no migration consumer left."""
    providers = plans.providers(nova)
    for host in hosts:
        service = plans.services(nova)[host]
        assert (service["status"], service["disabled_reason"]) == ("disabled", reason)
    for server_id, status in before.status.items():
        found = nova.server(server_id)
        new_host = found["OS-EXT-SRV-ATTR:host"]
        assert (found["status"], found["OS-EXT-STS:task_state"]) == (status, None), server_id
        assert new_host not in hosts, server_id
        newer = before.newest_migration[server_id]
        new = [m for m in plans.migrations(nova, server_id) if m["id"] > newer]
        assert [(m["status"], m["migration_type"]) for m in new] == [MOVED_BY[status]], (
            server_id,
            new,
        )
        assert new[0]["source_compute"] in hosts
        assert new[0]["dest_compute"] == new_host
        held = plans.held(nova, server_id)
        assert list(held) == [providers[new_host]], (server_id, held)
        assert plans.held(nova, new[0]["uuid"]) == {}, server_id  # the migration consumer is gone
    for host in hosts:
        usages = nova.placement.get(f"/resource_providers/{providers[host]}/usages").json()
        assert not any(usages["usages"].values()), (host, usages)
        assert plans.servers_on(nova, host) == [], host


def test_host_maintenance_drains_a_compute_through_nova(nova: cloud.Cloud, small: str) -> None:
    for index, host in enumerate(("compute1", "compute1", "compute2", "compute3")):
        nova.boot(f"exec-maint-{index}", small, host=host)
    stopped = nova.boot("exec-maint-stopped", small, host="compute1")["id"]
    nova.compute.post(f"/servers/{stopped}/action", json={"os-stop": None})
    nova.wait_for_status(stopped, "SHUTOFF")
    before = _before(nova, "compute1")
    on_host = list(before.status)
    assert len(on_host) >= 3
    assert before.status[stopped] == "SHUTOFF"
    providers = plans.providers(nova)

    # As an operator would: the real client, finding our /v1 in Keystone's catalog.
    command = "optimize audit create -g cluster_maintaining -s host_maintenance"
    options = "-p maintenance_node=compute1 --auto-trigger -f json"
    audit = json.loads(nova.openstack(*command.split(), *options.split()))["UUID"]
    found = nova.watcher.get(f"/v1/action_plans?audit_uuid={audit}").json()["action_plans"]
    (plan,) = [p["uuid"] for p in found]
    planned = plans.actions_of(nova, plan)
    migrates = [a for a in planned if a["action_type"] == "migrate"]
    assert {a["input_parameters"]["resource_id"] for a in migrates} == set(on_host)
    started = time.monotonic()
    ended = plans.apply(nova, plan, "applier-maintenance")
    took = time.monotonic() - started

    assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
    assert {a["state"] for a in plans.actions_of(nova, plan)} == {"SUCCEEDED"}
    _assert_drained(nova, ["compute1"], "watcher_maintaining", before)
    assert providers == plans.providers(nova)
    _assert_siblings_overlapped(cloud.placement_database(nova.workdir), migrates)
    print(f"host_maintenance of {len(on_host)} servers: {took:.1f} s")


def _run_times(database: str, actions: list[str]) -> dict[str, tuple[str, str]]:
    """When the applier started and finished each action (our database's record)."""
    marks = ",".join("?" * len(actions))
    with sqlite3.connect(database.removeprefix("sqlite:///"), timeout=10) as connection:
        rows = connection.execute(
            f"SELECT uuid, started_at, finished_at FROM actions WHERE uuid IN ({marks})",  # noqa: S608 (placeholders only)
            actions,
        ).fetchall()
    return {row[0]: (row[1], row[2]) for row in rows}


def _assert_siblings_overlapped(database: str, migrates: list[dict[str, Any]]) -> None:
    """Migrations the DAG lets run together (the same parents) did run together:
    each started before its sibling finished. At least one such pair exists."""
    times = _run_times(database, [a["uuid"] for a in migrates])
    by_parents: dict[tuple[str, ...], list[str]] = {}
    for action in migrates:
        by_parents.setdefault(tuple(sorted(action["parents"])), []).append(action["uuid"])
    pairs = [
        (first, second)
        for siblings in by_parents.values()
        for index, first in enumerate(siblings)
        for second in siblings[index + 1 :]
    ]
    assert pairs, migrates  # the planner put some migrations side by side
    for first, second in pairs:
        (start_1, end_1), (start_2, end_2) = times[first], times[second]
        assert start_1 < end_2 and start_2 < end_1, (first, times[first], second, times[second])


def _requested_migrations(database: str, plan: str) -> list[str]:
    """Migrate actions of ``plan`` that are ONGOING with their request recorded."""
    with sqlite3.connect(database.removeprefix("sqlite:///"), timeout=10) as connection:
        rows = connection.execute(
            "SELECT a.uuid FROM actions a JOIN action_plans p ON a.action_plan_id = p.id"
            " WHERE p.uuid = ? AND a.state = 'ONGOING' AND a.action_type = 'migrate'"
            " AND a.request IS NOT NULL",
            (plan,),
        ).fetchall()
    return [row[0] for row in rows]


def test_applier_killed_mid_migration_another_finishes_once(nova: cloud.Cloud, small: str) -> None:
    for index in range(3):
        nova.boot(f"exec-kill-{index}", small, host="compute2")
    before = _before(nova, "compute2")
    on_host = list(before.status)
    plan = plans.maintenance(nova, "compute2")
    first = nova.start_applier(
        "applier-killed", lease_seconds=LEASE_S, applier_options=APPLIER_OPTIONS
    )
    deadline = time.monotonic() + 60
    try:
        while not _requested_migrations(cloud.placement_database(nova.workdir), plan):
            assert time.monotonic() < deadline, first.log_tail()
            assert first.process.poll() is None, first.log_tail()
            time.sleep(0.05)
    finally:
        first.kill()
    in_flight = _requested_migrations(cloud.placement_database(nova.workdir), plan)
    assert in_flight  # still ONGOING: the killed applier recorded no end
    assert plans.plan_state(nova, plan)["state"] == "ONGOING"

    started = time.monotonic()
    ended = plans.apply(nova, plan, "applier-takeover")
    took = time.monotonic() - started

    assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
    assert {a["state"] for a in plans.actions_of(nova, plan)} == {"SUCCEEDED"}
    takeover_log = (nova.workdir / "logs" / "applier-takeover.log").read_text()
    assert f"Took over action plan {plan} (ONGOING)" in takeover_log
    _assert_drained(nova, ["compute2"], "watcher_maintaining", before)
    print(f"take-over after SIGKILL, {len(on_host)} servers: {took:.1f} s")


def test_a_migration_nova_refuses_fails_and_cancels_its_descendants(
    nova: cloud.Cloud, small: str
) -> None:
    refused = nova.boot("exec-refused", small, host="compute1")["id"]
    independent = nova.boot("exec-independent", small, host="compute2")["id"]
    descendant = nova.boot("exec-descendant", small, host="compute1")["id"]
    service = plans.services(nova)["compute3"]
    nova.compute.put(
        f"/os-services/{service['id']}",
        json={"status": "disabled", "disabled_reason": "exec test"},
        microversion="2.53",
    )
    providers = plans.providers(nova)
    # The weight planner puts two migrations side by side, the third below both.
    plan = plans.actuator(
        nova,
        [
            plans.migrate_action(refused, "compute1", "compute3"),
            plans.migrate_action(independent, "compute2", "compute1"),
            plans.migrate_action(descendant, "compute1", "compute2"),
        ],
    )
    by_server = {a["input_parameters"]["resource_id"]: a for a in plans.actions_of(nova, plan)}
    assert by_server[refused]["parents"] == by_server[independent]["parents"] == []
    assert set(by_server[descendant]["parents"]) == {
        by_server[refused]["uuid"],
        by_server[independent]["uuid"],
    }

    ended = plans.apply(nova, plan, "applier-refused")

    assert (ended["state"], ended["status_message"]) == ("FAILED", "One or more actions failed.")
    by_server = {a["input_parameters"]["resource_id"]: a for a in plans.actions_of(nova, plan)}
    failed = by_server[refused]
    assert failed["state"] == "FAILED"
    assert failed["status_message"] == (  # with Nova's own words
        f"Action failed in execute: Nova refused to live migrate server {refused} off"
        " compute1: No valid host was found."
    )
    assert by_server[descendant]["state"] == "CANCELLED"
    assert by_server[descendant]["status_message"] == (
        f"Action cancelled: its parent action {failed['uuid']} failed."
    )
    assert by_server[independent]["state"] == "SUCCEEDED"
    where = {s: nova.server(s) for s in (refused, independent, descendant)}
    assert {s: (f["status"], f["OS-EXT-SRV-ATTR:host"]) for s, f in where.items()} == {
        refused: ("ACTIVE", "compute1"),
        independent: ("ACTIVE", "compute1"),
        descendant: ("ACTIVE", "compute1"),
    }
    for server_id in (refused, independent, descendant):
        assert plans.held(nova, server_id) == {providers["compute1"]: SMALL}, server_id
    assert [m["status"] for m in plans.migrations(nova, descendant)] == []


def test_resize_by_flavor_name_through_nova(nova: cloud.Cloud, small: str) -> None:
    nova.create_flavor("exec-medium", MEDIUM["VCPU"], MEDIUM["MEMORY_MB"], MEDIUM["DISK_GB"])
    server_id = nova.boot("exec-resize", small)["id"]
    plan = plans.actuator(
        nova,
        [
            {
                "action_type": "resize",
                "resource_id": server_id,
                "input_parameters": {"flavor": "exec-medium"},
            }
        ],
    )
    started = time.monotonic()
    ended = plans.apply(nova, plan, "applier-resize")
    took = time.monotonic() - started

    assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
    (action,) = plans.actions_of(nova, plan)
    assert action["state"] == "SUCCEEDED", action
    found = nova.server(server_id)
    assert (found["status"], found["flavor"]["original_name"]) == ("ACTIVE", "exec-medium")
    host = found["OS-EXT-SRV-ATTR:host"]
    assert plans.held(nova, server_id) == {plans.providers(nova)[host]: MEDIUM}
    migrations = plans.migrations(nova, server_id)
    assert [(m["status"], m["migration_type"]) for m in migrations] == [("confirmed", "resize")]
    assert plans.held(nova, migrations[0]["uuid"]) == {}
    print(f"resize: {took:.1f} s")


def test_node_resource_consolidation_through_nova(nova: cloud.Cloud, small: str) -> None:
    """Nova's scheduler chooses the destinations (``host_choice`` auto): the released
    nodes are disabled first, so only the kept ones can take the servers."""
    for index, host in enumerate(nova.hosts):
        nova.boot(f"exec-nrc-{index}", small, host=host)
    plan = plans.audit(
        nova,
        {
            "goal": "server_consolidation",
            "strategy": "node_resource_consolidation",
            "parameters": {"host_choice": "auto"},
        },
    )
    planned = plans.actions_of(nova, plan)
    released = sorted(
        a["input_parameters"]["resource_name"]
        for a in planned
        if a["action_type"] == "change_nova_service_state"
    )
    assert len(released) == 2, planned  # one node (16 vCPUs x 4, 64 GiB) holds all
    before = _Before({}, {})
    for host in released:
        on_host = _before(nova, host)
        before.status.update(on_host.status)
        before.newest_migration.update(on_host.newest_migration)
    migrated = {
        a["input_parameters"]["resource_id"] for a in planned if a["action_type"] == "migrate"
    }
    assert migrated == set(before.status)
    assert all(a["input_parameters"].get("destination_node") is None for a in planned)

    started = time.monotonic()
    ended = plans.apply(nova, plan, "applier-consolidation")
    took = time.monotonic() - started

    assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
    assert {a["state"] for a in plans.actions_of(nova, plan)} == {"SUCCEEDED"}
    _assert_drained(nova, released, "Watcher node resource consolidation strategy", before)
    print(f"node_resource_consolidation, {len(migrated)} servers: {took:.1f} s")


def _measure(nova: cloud.Cloud, loaded: str, idle: str) -> list[str]:
    """Push, as watcher-tempest-plugin does, ``loaded`` fully busy and ``idle`` idle,
    and every consumer on ``idle`` (earlier scenarios' servers too: one left
    unmeasured would stay and keep the node enabled); those consumers."""
    now_ms = int(time.time() * 1000)
    on_idle = nova.placement.get(f"/resource_providers/{plans.providers(nova)[idle]}/allocations")
    consumers = list(on_idle.json()["allocations"])
    payload = (
        prometheus.host_text(loaded, 4096, now_ms, idle_slopes=[0.0, 0.0], load=0.8)
        + prometheus.host_text(idle, 4096, now_ms, idle_slopes=[1.0, 1.0], load=0.1)
        + "".join(prometheus.instance_text(consumer, RAM_MB, now_ms) for consumer in consumers)
    )
    pushed = nova.prometheus.push(payload)
    assert pushed.returncode == 0, pushed.stderr
    return consumers


def test_basic_on_measured_load_through_nova(nova: cloud.Cloud, small: str) -> None:
    """``basic`` plans on the load our Placement reads in the cloud's Prometheus:
    compute2 idle, compute1 busy (compute3 unmeasured: left out); compute2's servers
    go live to compute1 and its compute service is disabled."""
    kept = nova.boot("exec-basic-loaded", small, host="compute1")["id"]
    moving = nova.boot("exec-basic-idle", small, host="compute2")["id"]
    consumers = _measure(nova, "compute1", "compute2")
    try:
        before = _before(nova, "compute2")
        assert moving in before.status
        command = "optimize audit create -g server_consolidation -s basic --auto-trigger -f json"
        audit = json.loads(nova.openstack(*command.split()))["UUID"]
        found = nova.watcher.get(f"/v1/action_plans?audit_uuid={audit}").json()["action_plans"]
        (plan,) = [p["uuid"] for p in found]
        planned = plans.actions_of(nova, plan)
        moves = {
            a["input_parameters"]["resource_id"]: a["input_parameters"]["destination_node"]
            for a in planned
            if a["action_type"] == "migrate"
        }
        assert moves == dict.fromkeys(before.status, "compute1"), planned

        ended = plans.apply(nova, plan, "applier-basic")

        assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
        assert {a["state"] for a in plans.actions_of(nova, plan)} == {"SUCCEEDED"}
        _assert_drained(nova, ["compute2"], "watcher_disabled", before)
        assert nova.server(moving)["OS-EXT-SRV-ATTR:host"] == "compute1"
        assert nova.server(kept)["OS-EXT-SRV-ATTR:host"] == "compute1"
    finally:
        nova.prometheus.delete_series(f'{{resource=~"{"|".join(consumers)}"}}')
        nova.prometheus.delete_series('{fqdn=~"compute1|compute2"}')


def test_stop_shelve_and_delete_through_nova(nova: cloud.Cloud, small: str) -> None:
    """Each asked of Nova and waited for: the stopped server keeps its allocations,
    the shelved one is offloaded (Nova's default ``shelved_offload_time`` of 0) with
    its snapshot image created and its allocations released, the deleted one gone."""
    stopped, shelved, deleted = (
        nova.boot(f"exec-{name}", small)["id"] for name in ("stop", "shelve", "delete")
    )
    hosts = {s: nova.server(s)["OS-EXT-SRV-ATTR:host"] for s in (stopped, shelved, deleted)}
    images_before = set(nova.stubs.images)
    plan = plans.actuator(
        nova,
        [
            {"action_type": action_type, "resource_id": server_id, "input_parameters": {}}
            for action_type, server_id in (
                ("stop", stopped),
                ("shelve", shelved),
                ("delete", deleted),
            )
        ],
    )

    ended = plans.apply(nova, plan, "applier-server-states")

    assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
    assert {a["state"] for a in plans.actions_of(nova, plan)} == {"SUCCEEDED"}
    assert nova.server(stopped)["status"] == "SHUTOFF"
    assert plans.held(nova, stopped) == {plans.providers(nova)[hosts[stopped]]: SMALL}
    assert nova.server(shelved)["status"] == "SHELVED_OFFLOADED"
    assert plans.held(nova, shelved) == {}
    (snapshot,) = set(nova.stubs.images) - images_before
    assert nova.stubs.images[snapshot]["name"] == "exec-shelve-shelved"
    gone = nova.compute.get(f"/servers/{deleted}", raise_exc=False)
    assert gone.status_code == 404
    assert plans.held(nova, deleted) == {}


def test_what_nova_holds_for_a_migration_is_skipped_not_moved(
    nova: cloud.Cloud, small: str
) -> None:
    """A cold migration left VERIFY_RESIZE keeps the server's old allocations on
    the source under the migration record's uuid, with no consumer type (Nova 34
    types none), so host_maintenance plans it like a server: Nova has no such
    server, and that migrate is SKIPPED saying why; nothing of it is moved."""
    server_id = nova.boot("exec-verify", small, host="compute3")["id"]
    nova.compute.post(
        f"/servers/{server_id}/action",
        json={"migrate": {"host": "compute2"}},
        microversion="2.56",
    )
    nova.wait_for_status(server_id, "VERIFY_RESIZE")
    (record,) = plans.migrations(nova, server_id)
    providers = plans.providers(nova)
    assert plans.held(nova, record["uuid"]) == {providers["compute3"]: SMALL}
    try:
        plan = plans.maintenance(nova, "compute3")
        ended = plans.apply(nova, plan, "applier-migration-record")
        assert ended["state"] == "SUCCEEDED", (ended, plans.actions_of(nova, plan))
        by_consumer = {
            a["input_parameters"].get("resource_id"): a
            for a in plans.actions_of(nova, plan)
            if a["action_type"] == "migrate"
        }
        skipped = by_consumer[record["uuid"]]
        assert skipped["state"] == "SKIPPED", skipped
        assert f"Nova has no server {record['uuid']}" in skipped["status_message"]
        assert plans.held(nova, record["uuid"]) == {providers["compute3"]: SMALL}
        assert nova.server(server_id)["status"] == "VERIFY_RESIZE"
    finally:
        nova.compute.post(f"/servers/{server_id}/action", json={"confirmResize": None})
        nova.wait_for_status(server_id, "ACTIVE")
