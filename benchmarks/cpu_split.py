"""Where a request's CPU goes: the Placement server, the database server, the client.

Latency and throughput say how long a request took; this says who worked
for it. It sends requests to a running server (any Placement: ours or
upstream) and reads, before and after, the CPU time of

* the gunicorn processes listening on the URL's port (``server``),
* the database server's processes, PostgreSQL or MariaDB/MySQL (``db``),
* the client doing the sending (``client``),

then prints each one's CPU milliseconds per request. On a machine where
both servers share the same cores, ``server + db + client`` per request is
what bounds throughput, and ``db`` is a floor under a single client's
latency that no server-side change removes.

Workloads: ``flat`` and ``nested`` send the candidates queries of
``benchmarks/candidates.py`` from ``--clients`` keep-alive connections;
``claims`` runs ``benchmarks/claims.py`` (its ``claims`` workload) and counts
per successful claim (each is a candidates query plus a claim). With
``--serve ours`` or ``--serve upstream`` the tool starts that server as
``candidates.py`` does (fresh database of ``--db``, statistics gathered
after loading the workload) and stops it afterwards; without, ``--url``
names a running server that holds the workload already::

    .venv/bin/python benchmarks/cpu_split.py --serve upstream --workload flat \
        --db postgresql+psycopg2://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit

import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import candidates  # noqa: E402  (the sibling benchmark: queries and client)

_DATABASE_PROCESSES = ("postgres", "mariadbd", "mysqld")


def cpu_by_group(port: int, clients: set[int]) -> dict[int, tuple[str, float]]:
    """CPU seconds so far of every process, with the group it counts for."""
    found: dict[int, tuple[str, float]] = {}
    for process in psutil.process_iter(["name", "cmdline", "cpu_times"]):
        try:
            command = " ".join(process.info["cmdline"] or [])
            name = process.info["name"] or ""
            times = process.info["cpu_times"]
        except psutil.Error:
            continue
        if times is None:
            continue
        if "gunicorn" in command and f":{port}" in command:
            group = "server"
        elif name.startswith(_DATABASE_PROCESSES):
            group = "db"
        elif process.pid in clients:
            group = "client"
        else:
            continue
        found[process.pid] = (group, times.user + times.system)
    return found


def per_request(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]], count: int
) -> dict[str, float]:
    """CPU milliseconds per request by group (processes gone by ``after`` are lost)."""
    spent: dict[str, float] = {}
    for pid, (group, seconds) in after.items():
        spent[group] = spent.get(group, 0.0) + seconds - before.get(pid, (group, 0.0))[1]
    return {group: round(1000 * seconds / count, 1) for group, seconds in sorted(spent.items())}


def send(port: int, path: str, requests: int, clients: int) -> None:
    """``requests`` GETs of ``path`` from ``clients`` keep-alive connections."""
    left = [requests]
    lock = threading.Lock()

    def work() -> None:
        client = candidates.Client(port)
        while True:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            status, _ = client.fetch("GET", path)
            if status != 200:
                raise RuntimeError(f"GET {path} answered {status}")

    threads = [threading.Thread(target=work) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def claims(url: str, port: int) -> tuple[dict[str, float], float, int]:
    """Run the claims workload; CPU per claim, claims/s and the claims made."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "claims.py")
    process = subprocess.Popen(
        [sys.executable, tool, "--url", url, *candidates.CLAIMS_ARGS],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    before = cpu_by_group(port, {process.pid})
    last = before
    while process.poll() is None:  # the client's own CPU, read before it exits
        last = cpu_by_group(port, {process.pid})
        time.sleep(0.5)
    after = cpu_by_group(port, set())
    after.update({pid: seen for pid, seen in last.items() if seen[0] == "client"})
    assert process.stdout is not None
    summary = json.loads(process.stdout.read())
    made = summary["claims"]
    return per_request(before, after, made), summary["claims_per_s"], made


def measure(url: str, workload: str, requests: int, clients: int) -> None:
    port = urlsplit(url).port or 80
    if workload == "claims":
        split, rate, made = claims(url, port)
        print(f"claims: {made} at {rate} claims/s; CPU ms per claim: {split}")
        return
    query = {"flat": candidates.FLAT_QUERY, "nested": candidates.NESTED_QUERY}[workload]
    path = f"/allocation_candidates?{query}"
    before = cpu_by_group(port, {os.getpid()})
    began = time.perf_counter()
    send(port, path, requests, clients)
    rate = requests / (time.perf_counter() - began)
    split = per_request(before, cpu_by_group(port, {os.getpid()}), requests)
    print(f"{workload}: {rate:.1f} req/s; CPU ms per request: {split}")


def serve_and_measure(args: argparse.Namespace) -> None:
    """Start ``args.serve`` on a fresh database, load the workload, measure."""
    venv = args.ours_venv if args.serve == "ours" else args.upstream_venv
    workdir = tempfile.mkdtemp(prefix="placement-cpu-split-")
    with candidates.fresh_database(args.db, workdir, f"cpu_{args.workload}") as url:
        server = candidates.Server(candidates.Flavor(args.serve, venv), url, args.port, workdir)
        server.start()
        try:
            loaders = {"flat": candidates.load_flat, "nested": candidates.load_nested}
            if args.workload in loaders:
                loaders[args.workload](args.port)
                candidates.gather_statistics(url)
            measure(f"http://127.0.0.1:{args.port}", args.workload, args.requests, args.clients)
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server holding the workload")
    parser.add_argument("--serve", choices=["ours", "upstream"], help="start this server")
    parser.add_argument("--db", help="with --serve: database server URL (default: SQLite)")
    parser.add_argument("--port", type=int, default=18870, help="with --serve")
    parser.add_argument("--ours-venv", default=os.path.join(candidates.ROOT, ".venv"))
    parser.add_argument("--upstream-venv", default=candidates.DEFAULT_UPSTREAM)
    parser.add_argument("--workload", choices=["flat", "nested", "claims"], required=True)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--clients", type=int, default=10)
    args = parser.parse_args(argv)
    if (args.url is None) == (args.serve is None):
        parser.error("give either --url or --serve")
    if args.serve:
        serve_and_measure(args)
    else:
        measure(args.url, args.workload, args.requests, args.clients)
    return 0


if __name__ == "__main__":
    sys.exit(main())
