"""Placement on a three-node MariaDB Galera cluster: ours and upstream's, same cluster, same run.

Starts the cluster and HAProxy of ``tests/galera/cluster.py`` (private ports,
a temporary directory, everything killed and removed at the end), then, for
each implementation in turn, on a fresh database each time:

* ``contention``: three gunicorn servers (2 workers each), server *i* on
  node *i*; 39 clients (13 per server) claim 1 VCPU for a new consumer
  (``PUT /allocations/{c}``, ``consumer_generation: null``) from one
  provider of 256 VCPU until it is full;
* ``failover/<layout>``: the three servers all through HAProxy (round-robin
  over the nodes, or active/backup); 39 clients fill a provider of 1024 VCPU
  while a node (the active one for active/backup, node 1 for round-robin) is
  SIGKILLed at 5 s and started again at 15 s (it rejoins by incremental
  state transfer).

For each: accepted claims vs capacity, over-capacity providers, lost
(answered 204, not held), phantom (held, not answered 204), 500s, 503s,
409s (``placement.concurrent_update`` and others), other answers, the longest
gap without a successful claim, claims/s. Then, ours only, read-your-writes:
500 claims through the server on node 0, each followed at once by a read of
the consumer through the server on node 1, stale reads counted, with and
without ``[placement_database] mysql_wsrep_sync_wait = 1``.

    .venv/bin/python benchmarks/galera.py [--upstream-venv ~/.cache/placement-upstream-16/venv]

Upstream is Placement 16.0.0 installed in its own venv (never in ``.venv``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks.candidates import Flavor, Server  # noqa: E402
from tests.galera import cluster  # noqa: E402
from tests.outage import call  # noqa: E402
from tests.server import free_port  # noqa: E402

DEFAULT_UPSTREAM = os.path.expanduser("~/.cache/placement-upstream-16/venv")
CLIENTS = 39


class GaleraServer(Server):
    """A gunicorn Placement on one database URL, with extra ``[placement_database]`` lines."""

    def __init__(self, flavor: Flavor, db_url: str, workdir: str, extra: str = "") -> None:
        super().__init__(flavor, db_url, free_port(), workdir)
        self.extra = extra

    def start(self) -> None:
        self.write_conf(self.extra)
        if not self._launch():
            raise RuntimeError(f"{self.flavor.name} server did not start:\n{self.log_tail()}")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Run:
    """Every claim's answer and when it came back."""

    capacity: int
    answers: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    successes: list[float] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0


def _claim(base: str, provider: str) -> tuple[str, int | None, str]:
    consumer = str(uuid.uuid4())
    body = {
        "allocations": {provider: {"resources": {"VCPU": 1}}},
        "project_id": "bench",
        "user_id": "bench",
        "consumer_generation": None,
    }
    try:
        status, _, answer = call(base, "PUT", f"/allocations/{consumer}", body)
    except OSError as exc:
        return consumer, None, repr(exc)
    code = answer["errors"][0].get("code", "") if answer and "errors" in answer else ""
    return consumer, status, code


def fill(bases: list[str], provider: str, capacity: int) -> Run:
    """CLIENTS threads over ``bases`` claiming until a 409 says the provider is full."""
    run = Run(capacity)
    lock = threading.Lock()
    full = threading.Event()

    def work(index: int) -> None:
        base = bases[index % len(bases)]
        while not full.is_set():
            consumer, status, code = _claim(base, provider)
            with lock:
                run.answers[consumer] = (status, code)
                if status == 204:
                    run.successes.append(time.monotonic())
            if status == 409 and code != "placement.concurrent_update":
                full.set()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(CLIENTS)]
    run.started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.ended = time.monotonic()
    return run


def provider(base: str, total: int) -> str:
    rp = str(uuid.uuid4())
    assert call(base, "POST", "/resource_providers", {"name": rp, "uuid": rp})[0] == 200
    inventory = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": total}}}
    assert call(base, "PUT", f"/resource_providers/{rp}/inventories", inventory)[0] == 200
    return rp


def summary(run: Run, base: str, rp: str) -> dict:
    """The figures of one run, checked against what the provider holds."""
    status, _, body = call(base, "GET", f"/resource_providers/{rp}/allocations")
    assert status == 200, body
    held = {c: s["resources"]["VCPU"] for c, s in body["allocations"].items()}
    accepted = {c for c, (s, _) in run.answers.items() if s == 204}
    statuses = [s for s, _ in run.answers.values()]
    marks = [run.started, *sorted(run.successes), run.ended]
    return {
        "accepted": len(accepted),
        "capacity": run.capacity,
        "over_capacity_providers": int(sum(held.values()) > run.capacity),
        "lost": len(accepted - set(held)),
        "phantom": len(set(held) - accepted),
        "doubled": sum(1 for amount in held.values() if amount != 1),
        "500": statuses.count(500),
        "503": statuses.count(503),
        "409_concurrent_update": sum(
            1 for s, c in run.answers.values() if s == 409 and c == "placement.concurrent_update"
        ),
        "409_other": sum(
            1 for s, c in run.answers.values() if s == 409 and c != "placement.concurrent_update"
        ),
        "other": sum(1 for s in statuses if s not in (204, 409, 500, 503)),
        "longest_gap_s": round(max(b - a for a, b in zip(marks, marks[1:], strict=False)), 2),
        "claims_per_s": round(len(accepted) / (run.ended - run.started), 1),
    }


@contextmanager
def servers(flavor: Flavor, urls: list[str], workdir: str, extra: str = "") -> Iterator[list[str]]:
    """One server per URL, started and stopped together; yields their base URLs."""
    started: list[GaleraServer] = []
    try:
        for index, url in enumerate(urls):
            server = GaleraServer(flavor, url, os.path.join(workdir, str(index)), extra)
            server.start()
            started.append(server)
        yield [server.base for server in started]
    finally:
        for server in started:
            server.stop()


def contention(nodes: cluster.Cluster, flavor: Flavor, workdir: str) -> dict:
    with cluster.placement_database(nodes) as urls, servers(flavor, urls, workdir) as bases:
        rp = provider(bases[0], 256)
        return summary(fill(bases, rp, 256), bases[1], rp)


def failover(
    nodes: cluster.Cluster, proxy: cluster.HAProxy, layout: str, flavor: Flavor, workdir: str
) -> dict:
    victim = nodes.nodes[0] if layout == "active_backup" else nodes.nodes[1]
    with cluster.placement_database(nodes) as urls:
        via = [cluster.through(urls[0], getattr(proxy, layout))] * 3
        with servers(flavor, via, workdir) as bases:
            rp = provider(bases[0], 1024)

            def crash() -> None:
                time.sleep(5)
                victim.kill()
                time.sleep(10)
                nodes.restart(victim, wait=False)

            crasher = threading.Thread(target=crash)
            crasher.start()
            run = fill(bases, rp, 1024)
            crasher.join()
            figures = summary(run, bases[0], rp)
    victim.wait_synced(3)
    return figures


def read_your_writes(nodes: cluster.Cluster, flavor: Flavor, workdir: str, extra: str) -> int:
    """Stale reads among 500 claims on node 0 each read at once on node 1."""
    with cluster.placement_database(nodes) as urls, servers(flavor, urls[:2], workdir, extra) as b:
        rp = provider(b[0], 1000)
        stale = 0
        for _ in range(500):
            consumer, status, _ = _claim(b[0], rp)
            assert status == 204, status
            _, _, body = call(b[1], "GET", f"/allocations/{consumer}")
            stale += rp not in body["allocations"]
        return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ours-venv", default=os.path.join(os.path.dirname(HERE), ".venv"))
    parser.add_argument("--upstream-venv", default=DEFAULT_UPSTREAM)
    args = parser.parse_args(argv)
    reason = cluster.missing()
    if reason:
        print(f"galera: {reason}", file=sys.stderr)
        return 2
    flavors = [Flavor("ours", args.ours_venv), Flavor("upstream", args.upstream_venv)]
    results: dict[str, dict] = {}
    with ExitStack() as stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="galera-bench-"))
        nodes, proxy = stack.enter_context(cluster.running())
        for flavor in flavors:
            here = os.path.join(workdir, flavor.name)
            results[f"{flavor.name} contention"] = contention(nodes, flavor, here)
            print(flavor.name, "contention", results[f"{flavor.name} contention"], flush=True)
            for layout in ("round_robin", "active_backup"):
                key = f"{flavor.name} failover/{layout}"
                results[key] = failover(nodes, proxy, layout, flavor, here)
                print(key, results[key], flush=True)
        ours = flavors[0]
        for label, extra in (("without", ""), ("with", "mysql_wsrep_sync_wait = 1\n")):
            stale = read_your_writes(nodes, ours, os.path.join(workdir, f"ryw-{label}"), extra)
            results[f"ours read-your-writes {label} wsrep_sync_wait"] = {"stale_of_500": stale}
            print(label, "wsrep_sync_wait: stale", stale, flush=True)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
