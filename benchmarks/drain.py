"""Drain one host with the host_maintenance strategy while schedulers keep claiming.

For each ``--max-workers`` value, on a fresh database: one host holding
``--consumers`` consumers, ``--others`` hosts with room for them, and, elsewhere,
``--clients`` hosts in an aggregate of their own offering only ``CUSTOM_BENCH_SLOT``
(so the strategy never picks them and the clients never fill the destinations).
Then

1. plan: ``host_maintenance`` audit (auto-triggered) through the object layer,
   timed (``plan s``);
2. apply: ``placement-applier --once`` with that ``max_workers`` runs the plan while
   ``--clients`` threads claim slots on allocation candidates of that aggregate,
   as a scheduler would (candidates, then the same generation-checked
   write as ``PUT /allocations``); ``apply s`` is the applier's wall time minus
   that of an idle ``--once`` run (process start-up), and ``claims/s`` the
   clients' rate meanwhile;
3. check: the plan SUCCEEDED, the drained host holds nothing, every drained
   consumer holds exactly what it held, once, elsewhere; every client claim is
   there; each provider's usage equals the sum of what those allocations should
   be, and no capacity is exceeded.

Run: ``.venv/bin/python benchmarks/drain.py [--db mysql+pymysql://root@127.0.0.1:3306/]``
(SQLite in a temporary file when ``--db`` is left out). Exit status 1 when a check
fails. ``--results FILE`` appends the table to FILE.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

import sqlalchemy
from candidates import fresh_database  # benchmarks/candidates.py
from oslo_config import cfg

from placement import conf as placement_conf
from placement.actionplans.planners import PlannerOptions
from placement.candidates import engine as candidate_engine
from placement.candidates.request import CandidateRequest, RequestGroup
from placement.db import engine as db_engine
from placement.db import migration, standard
from placement.objects import (
    aggregate,
    allocation,
    claim,
    claim_consumers,
    exceptions,
    filters,
    inventory,
    resource_class,
    usage,
)
from placement.objects import resource_provider as rp_obj
from placement.objects.actionplans import actions, audits, catalog, paging, plans

CONSUMER = {"VCPU": 2, "MEMORY_MB": 2048}
CLAIM = {"CUSTOM_BENCH_SLOT": 1}
APPLIER = os.path.join(os.path.dirname(sys.executable), "placement-applier")

Allocations = dict[str, dict[str, int]]


@dataclass
class Cloud:
    drained: rp_obj.Provider
    others: list[rp_obj.Provider]
    elsewhere: list[rp_obj.Provider]
    aggregate: str
    consumers: dict[str, Allocations]


@dataclass
class Claims:
    """What the scheduler threads claimed (consumer → allocations)."""

    made: dict[str, Allocations] = field(default_factory=dict)
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _node(engine: sqlalchemy.Engine, name: str, records: dict[str, dict]) -> rp_obj.Provider:
    provider = rp_obj.create_provider(engine, name=name, uuid=str(uuid.uuid4()))
    inventory.set_inventories(engine, provider, records)
    found = rp_obj.find(engine, provider.uuid)
    assert found is not None
    return found


def _compute(engine: sqlalchemy.Engine, name: str, vcpu: int) -> rp_obj.Provider:
    return _node(engine, name, {"VCPU": {"total": vcpu}, "MEMORY_MB": {"total": vcpu * 1024}})


def build(engine: sqlalchemy.Engine, consumers: int, others: int, clients: int) -> Cloud:
    drained = _compute(engine, "drain-host", consumers * CONSUMER["VCPU"])
    # Room for an even share of the drained consumers, twice over.
    per_host = 2 * consumers * CONSUMER["VCPU"] // others + 8
    hosts = [_compute(engine, f"host-{i:02d}", per_host) for i in range(others)]
    resource_class.ensure(engine, "CUSTOM_BENCH_SLOT")
    group = str(uuid.uuid4())
    elsewhere = []
    for index in range(clients):
        slots = _node(engine, f"elsewhere-{index:02d}", {"CUSTOM_BENCH_SLOT": {"total": 10**6}})
        aggregate.set_aggregates(engine, slots, [group], increment_generation=True)
        elsewhere.append(slots)
    held = {str(uuid.uuid4()): {drained.uuid: dict(CONSUMER)} for _ in range(consumers)}
    writes = [claim_consumers.ConsumerWrite(c, "bench", "bench", a) for c, a in held.items()]
    claim.replace(engine, writes, attempts=10)
    return Cloud(drained, hosts, elsewhere, group, held)


def scheduler(
    engine: sqlalchemy.Engine,
    conf: cfg.ConfigOpts,
    cloud: Cloud,
    claims: Claims,
    stop: threading.Event,
    seed: int,
) -> None:
    """Claim CLAIM on a random candidate of the aggregate until told to stop."""
    rng = random.Random(seed)
    request = CandidateRequest(
        groups=(
            RequestGroup(
                "",
                dict(CLAIM),
                filters.TraitFilter(),
                filters.AggregateFilter(member_of=(frozenset({cloud.aggregate}),)),
            ),
        ),
        limit=5,
    )
    settings = candidate_engine.Settings.from_conf(conf)
    while not stop.is_set():
        answer = json.loads(candidate_engine.find(engine, request, settings))
        options = answer["allocation_requests"]
        if not options:
            return
        choice = {p: dict(s["resources"]) for p, s in rng.choice(options)["allocations"].items()}
        consumer = str(uuid.uuid4())
        try:
            claim.replace(
                engine,
                [
                    claim_consumers.ConsumerWrite(
                        consumer, "bench", "bench", choice, generation=None
                    )
                ],
                attempts=10,
            )
        except exceptions.InvalidAllocation:
            with claims.lock:
                claims.refused += 1
            continue
        with claims.lock:
            claims.made[consumer] = choice


def run_applier(config: str) -> float:
    started = time.monotonic()
    subprocess.run([APPLIER, "--config-file", config, "--once"], check=True)
    return time.monotonic() - started


def verify(engine: sqlalchemy.Engine, cloud: Cloud, claims: Claims, plan_uuid: str) -> list[str]:
    problems = []
    plan = plans.get_plan(engine, plan_uuid)
    listed = actions.list_actions(engine, paging.Page(limit=10000), action_plan_uuid=plan_uuid)
    if plan.state != "SUCCEEDED":
        problems.append(f"plan {plan.state}: {plan.status_message}")
        problems.extend(
            f"{a.action_type} {a.state}: {a.status_message}"
            for a in listed
            if a.state not in ("SUCCEEDED", "CANCELLED")
        )
    expected: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for consumer, before in cloud.consumers.items():
        found = allocation.get_for_consumer(engine, consumer)
        now = {} if found is None else {p: s.resources for p, s in found.providers.items()}
        if list(now.values()) != list(before.values()) or cloud.drained.uuid in now:
            problems.append(f"consumer {consumer}: {before} became {now}")
        for provider, amounts in now.items():
            for rc, amount in amounts.items():
                expected[provider][rc] += amount
    for consumer, claimed in claims.made.items():
        found = allocation.get_for_consumer(engine, consumer)
        now = {} if found is None else {p: s.resources for p, s in found.providers.items()}
        if now != claimed:
            problems.append(f"claim {consumer}: {claimed} became {now}")
        for provider, amounts in claimed.items():
            for rc, amount in amounts.items():
                expected[provider][rc] += amount
    for host in [cloud.drained, *cloud.others, *cloud.elsewhere]:
        used = usage.provider_usages(engine, host.id)
        for rc, record in inventory.list_for_provider(engine, host).items():
            capacity = (record.total - record.reserved) * record.allocation_ratio
            if used.get(rc, 0) > capacity:
                problems.append(f"OVERCOMMIT {host.name} {rc}: {used[rc]} > {capacity}")
            if used.get(rc, 0) != expected[host.uuid].get(rc, 0):
                problems.append(
                    f"{host.name} {rc}: usage {used.get(rc, 0)} "
                    f"!= allocations {expected[host.uuid].get(rc, 0)}"
                )
    return problems


def one_run(args: argparse.Namespace, workdir: str, workers: int) -> dict:
    with fresh_database(args.db, workdir, f"drain{workers}") as url:
        engine = db_engine.engine_from_url(url)
        try:
            migration.upgrade_all(engine)
            standard.sync_standard_names(engine)  # what placement-api does at start-up
            catalog.sync_catalog(engine)
            config = os.path.join(workdir, f"drain-{workers}.conf")
            with open(config, "w") as out:
                out.write(
                    f"[placement_database]\nconnection = {url}\n"
                    f"[watcher_workflow_engines.taskflow]\nmax_workers = {workers}\n"
                )
            conf = placement_conf.load(["--config-file", config])
            cloud = build(engine, args.consumers, args.others, args.clients)
            idle = run_applier(config)
            started = time.monotonic()
            audit = audits.create_audit(
                engine,
                PlannerOptions(),
                {
                    "goal": "cluster_maintaining",
                    "strategy": "host_maintenance",
                    "audit_type": "ONESHOT",
                    "auto_trigger": True,
                    "parameters": {"maintenance_node": cloud.drained.name},
                },
            )
            plan_s = time.monotonic() - started
            (plan,) = plans.list_plans(engine, paging.Page(), audit_uuid=audit.uuid)
            claims, stop = Claims(), threading.Event()
            threads = [
                threading.Thread(target=scheduler, args=(engine, conf, cloud, claims, stop, i))
                for i in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            apply_wall = run_applier(config)
            stop.set()
            for thread in threads:
                thread.join()
            problems = verify(engine, cloud, claims, plan.uuid)
        finally:
            engine.dispose()
    return {
        "max_workers": workers,
        "plan_s": plan_s,
        "apply_s": apply_wall - idle,
        "idle_s": idle,
        "claims": len(claims.made),
        "claims_per_s": len(claims.made) / apply_wall,
        "refused": claims.refused,
        "problems": problems,
    }


def table(args: argparse.Namespace, rows: list[dict]) -> str:
    backend = sqlalchemy.engine.make_url(args.db).get_backend_name() if args.db else "sqlite"
    lines = [
        f"### drain — {backend} — {datetime.date.today().isoformat()}",
        "",
        f"* machine: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        f"* command: `benchmarks/drain.py --consumers {args.consumers} --others {args.others} "
        f"--clients {args.clients}{' --db ' + args.db if args.db else ''}`",
        "",
        "| max_workers | plan s | apply s | applier start-up s | client claims | claims/s "
        "during drain | refused claims | usage = allocations, no overcommit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['max_workers']} | {row['plan_s']:.2f} | {row['apply_s']:.2f} | "
            f"{row['idle_s']:.2f} | {row['claims']} | {row['claims_per_s']:.1f} | "
            f"{row['refused']} | {'yes' if not row['problems'] else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None, help="database server URL (default: SQLite file)")
    parser.add_argument("--consumers", type=int, default=200)
    parser.add_argument("--others", type=int, default=20)
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--max-workers", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--results", help="append the table to this file")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="drain-") as workdir:
        for workers in args.max_workers:
            rows.append(one_run(args, workdir, workers))
            for problem in rows[-1]["problems"][:20]:
                print(f"  ! {problem}")
    text = table(args, rows)
    print(text)
    if args.results:
        with open(args.results, "a") as out:
            out.write("\n" + text)
    return 1 if any(row["problems"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
