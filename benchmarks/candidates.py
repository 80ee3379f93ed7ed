"""GET /allocation_candidates: our server against upstream Placement, side by side.

For each workload and each server (ours, then upstream) this tool makes a
fresh database of the chosen kind, runs the server's own ``placement-manage
db sync``, starts it under gunicorn with identical settings, loads the
workload's providers, then times the workload's queries from 10 concurrent
clients (keep-alive connections). Only one server runs at a time.

Workloads (see ``benchmarks/README.md``):

* ``flat``   1000 providers as upstream's ``placeload`` makes them;
* ``nested`` 1000 copies of upstream's 7-provider nested-perfload tree;
* ``wide``   one root with 8 children of 1 unit, 8 suffixed groups of 1 unit,
  with and without ``limit=10`` (upstream bug 2070257);
* ``scale``  flat providers at 1k, 10k and 50k (rows written straight into
  the database, identically for both servers), p50 with and without
  ``limit=10``;
* ``claims`` ``benchmarks/claims.py`` run against each server in turn: 10
  concurrent clients take ``GET /allocation_candidates?...&limit=5`` and
  claim one of the answers until 40 providers are full; claims/s, claim
  latency, 5xx and whether usage matches the claims (no overcommit).

Usage::

    .venv/bin/python benchmarks/candidates.py [--db URL] [--workloads flat,nested,...]
        [--results benchmarks/RESULTS.md]

``--db`` is a server URL to create databases on (``mysql+pymysql://root@host/``,
``postgresql+psycopg://user@host/postgres``); without it each server gets a
SQLite file. The upstream server comes from ``--upstream-venv`` (default: the
conformance harness's venv, which has ``openstack-placement`` installed).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import http.client
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import psutil
import sqlalchemy
from sqlalchemy import insert, select

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_UPSTREAM = os.path.expanduser("~/.cache/placement-conformance/venv")
GUNICORN_ARGS = [
    "--workers",
    "2",
    "--timeout",
    "600",
    "--graceful-timeout",
    "5",
    "--no-control-socket",
]
CONCURRENCY = 10
#: Seconds to wait after a server's first answer for all its workers to boot.
BOOT_GRACE = 8.0
#: Requests sent one at a time before the concurrent ones.
ALONE = 5
#: Loading calls that answered 5xx and were sent again.
RETRIED = [0]

# placeload: every provider in aggregate 1 (and 2, 3 by turns), same inventory.
PLACELOAD_AGGREGATES = [
    "14a5c8a3-5a99-4e8f-88be-00d85fcb1c17",
    "66d98e7c-3c25-485d-a0dc-1cea651884de",
    "a59dbb28-fd98-4c6e-9ec5-ae5f3d04b0aa",
]
PLACELOAD_TRAITS = ["HW_CPU_X86_AVX", "HW_CPU_X86_AVX2", "HW_CPU_X86_SSE"]
PLACELOAD_INVENTORY = {
    "MEMORY_MB": {"total": 8192, "min_unit": 128, "max_unit": 8192},
    "DISK_GB": {"total": 8192, "min_unit": 5, "max_unit": 8192},
    "VCPU": {"total": 32, "min_unit": 1, "max_unit": 16},
}
FLAT_QUERY = (
    f"resources=VCPU:1,DISK_GB:10,MEMORY_MB:256&member_of={PLACELOAD_AGGREGATES[0]}"
    "&required=HW_CPU_X86_AVX2"
)
NESTED_QUERY = (
    "resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH"
    "&resources_COMPUTE=VCPU:1,MEMORY_MB:256&required_COMPUTE=CUSTOM_FOO"
    "&resources_FPGA=FPGA:1&group_policy=none&same_subtree=_COMPUTE,_FPGA"
)
WIDE_QUERY = "&".join(f"resources{n}=FPGA:1" for n in range(1, 9)) + "&group_policy=none"
#: The claims workload: 40 providers of 32 claims each, filled by 10 clients.
CLAIMS_ARGS = [
    "--clients",
    "10",
    "--providers",
    "40",
    "--inventory",
    "VCPU=32,MEMORY_MB=32768",
    "--resources",
    "VCPU:1,MEMORY_MB:256",
    "--source",
    "candidates",
    "--duration",
    "900",
    "--json",
    "--keep",
]


# --- servers -------------------------------------------------------------------


@dataclass
class Flavor:
    """How to run one implementation."""

    name: str
    venv: str

    def command(self, tool: str) -> str:
        return os.path.join(self.venv, "bin", tool)


class Server:
    """One gunicorn-served Placement on a fresh database."""

    def __init__(self, flavor: Flavor, db_url: str, port: int, workdir: str) -> None:
        self.flavor, self.db_url, self.port = flavor, db_url, port
        self.confdir = os.path.join(workdir, flavor.name)
        os.makedirs(self.confdir, exist_ok=True)
        self.process: subprocess.Popen | None = None

    def write_conf(self, extra: str = "") -> str:
        """The server's ``placement.conf`` (no auth, its database, then
        ``extra`` lines of ``[placement_database]``); returns its path."""
        conf_file = os.path.join(self.confdir, "placement.conf")
        with open(conf_file, "w") as conf:
            conf.write(
                "[api]\nauth_strategy = noauth2\n"
                f"[placement_database]\nconnection = {self.db_url}\n{extra}"
            )
        return conf_file

    def start(self) -> None:
        conf_file = self.write_conf()
        # Run outside the repository: gunicorn puts the working directory on
        # sys.path, and upstream must not import our ``placement`` package.
        subprocess.run(
            [self.flavor.command("placement-manage"), "--config-file", conf_file, "db", "sync"],
            check=True,
            capture_output=True,
            cwd=self.confdir,
        )
        # Upstream's workers each write the standard traits and classes while
        # booting; on SQLite two of them can collide ("database is locked"),
        # one fails to boot and gunicorn's master then shuts down. Such a
        # start is simply tried again (the writes are idempotent).
        for attempt in range(1, 6):
            if self._launch():
                return
            self.stop()
            print(
                f"  {self.flavor.name}: server did not start (attempt {attempt}), starting again",
                file=sys.stderr,
            )
        raise RuntimeError(f"{self.flavor.name} server did not start:\n{self.log_tail()}")

    def _launch(self) -> bool:
        """Start gunicorn; True once it answers and all its workers booted."""
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.confdir)
        log = open(os.path.join(self.confdir, "server.log"), "ab")
        self.process = subprocess.Popen(
            [
                self.flavor.command("gunicorn"),
                "--bind",
                f"127.0.0.1:{self.port}",
                *GUNICORN_ARGS,
                "placement.wsgi.api:application",
            ],
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=self.confdir,
        )
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            with contextlib.suppress(OSError, http.client.HTTPException):
                if Client(self.port).call("GET", "/")[0] == 200:
                    # One worker answers; give the others time to boot
                    # (a worker failing then takes the master down).
                    time.sleep(BOOT_GRACE)
                    return self.process.poll() is None
            time.sleep(0.2)
        return False

    def pss_bytes(self) -> int | None:
        """Proportional set size of the gunicorn tree (master and workers), summed."""
        if self.process is None:
            return None
        try:
            master = psutil.Process(self.process.pid)
            tree = [master, *master.children(recursive=True)]
            return sum(process.memory_full_info().pss for process in tree)
        except (psutil.Error, AttributeError):
            return None

    def log_tail(self) -> str:
        with open(os.path.join(self.confdir, "server.log"), errors="replace") as log:
            return log.read()[-6000:]

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            self.process = None


class Client:
    """A keep-alive HTTP client speaking as the admin."""

    def __init__(self, port: int, timeout: float = 600) -> None:
        self.port, self.timeout = port, timeout
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body=None, version: str = "latest"):
        status, raw = self.fetch(method, path, body, version)
        return status, (json.loads(raw) if raw else None)

    def fetch(
        self, method: str, path: str, body=None, version: str = "latest"
    ) -> tuple[int, bytes]:
        """The status and the raw body (timing should not include parsing)."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        headers = {
            "x-auth-token": "admin",
            "accept": "application/json",
            "openstack-api-version": f"placement {version}",
        }
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["content-type"] = "application/json"
        try:
            self.conn.request(method, path, data, headers)
            response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise
        return response.status, raw

    def ok(self, method: str, path: str, body=None, version: str = "latest"):
        """A call that must succeed; a 5xx (e.g. SQLite's "database is locked"
        under concurrent loading) or a dropped connection is retried (up to
        30 times) and counted."""
        for attempt in range(30):
            try:
                status, data = self.call(method, path, body, version)
            except (OSError, http.client.HTTPException):
                # A connection the server dropped: the call may or may not
                # have been done; a repeated create then finds it done.
                status, data = 599, None
            if attempt and method == "POST" and status == 409:
                status, data = 200, None
            if status < 500:
                break
            RETRIED[0] += 1
            time.sleep(min(1.0, 0.1 * (attempt + 1)))
        if status >= 400:
            raise RuntimeError(f"{method} {path} -> {status}: {data}")
        return data


# --- databases -----------------------------------------------------------------


@contextlib.contextmanager
def fresh_database(
    server_url: str | None, workdir: str, name: str, keep: bool = False
) -> Iterator[str]:
    """A new empty database; dropped afterwards, unless ``keep`` (then its
    name is printed on standard error)."""
    if server_url is None:
        path = os.path.join(workdir, f"{name}_{uuid.uuid4().hex[:8]}.db")
        try:
            yield f"sqlite:///{path}"
        finally:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path + suffix)
        return
    url = sqlalchemy.engine.make_url(server_url)
    admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    database = f"bench_{name}_{uuid.uuid4().hex[:8]}"
    mysql = url.get_backend_name() in ("mysql", "mariadb")
    with admin.connect() as conn:
        conn.exec_driver_sql(
            f"CREATE DATABASE {database}" + (" CHARACTER SET utf8mb4" if mysql else "")
        )
    try:
        yield url.set(database=database).render_as_string(hide_password=False)
    finally:
        if keep:
            print(f"kept database {database}", file=sys.stderr)
        else:
            with admin.connect() as conn:
                conn.exec_driver_sql(
                    f"DROP DATABASE {database}" + ("" if mysql else " WITH (FORCE)")
                )
        admin.dispose()


def gather_statistics(url: str) -> None:
    """Have PostgreSQL read the tables' statistics, as autovacuum does on
    its own soon after a load (this machine's server runs without it).

    Query plans differ with and without them, for both servers; a cloud's
    database has them. MariaDB's InnoDB gathers its own as rows change, and
    SQLite has none unless someone runs ``ANALYZE``.
    """
    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        if engine.dialect.name == "postgresql":
            with engine.connect() as conn:
                conn.exec_driver_sql("ANALYZE")
    finally:
        engine.dispose()


# --- loading over HTTP -----------------------------------------------------------


def provider(
    client: Client,
    name: str,
    parent: str | None = None,
    *,
    inventories=None,
    traits=(),
    aggregates=(),
    rp_uuid: str | None = None,
) -> str:
    rp = rp_uuid or str(uuid.uuid4())
    client.ok(
        "POST", "/resource_providers", {"name": name, "uuid": rp, "parent_provider_uuid": parent}
    )
    generation = 0
    if inventories:
        generation = client.ok(
            "PUT",
            f"/resource_providers/{rp}/inventories",
            {"resource_provider_generation": generation, "inventories": inventories},
        )["resource_provider_generation"]
    if traits:
        generation = client.ok(
            "PUT",
            f"/resource_providers/{rp}/traits",
            {"resource_provider_generation": generation, "traits": list(traits)},
        )["resource_provider_generation"]
    if aggregates:
        client.ok(
            "PUT",
            f"/resource_providers/{rp}/aggregates",
            {"resource_provider_generation": generation, "aggregates": list(aggregates)},
        )
    return rp


def in_parallel(port: int, count: int, make: Callable[[Client, int], None]) -> None:
    """Run ``make(client, i)`` for i < count on 8 threads with their own clients."""
    local = threading.local()

    def work(i: int) -> None:
        if not hasattr(local, "client"):
            local.client = Client(port)
        make(local.client, i)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(count)))


def placeload_shape(i: int) -> tuple[list[str], list[str]]:
    """The aggregates and traits of the i-th placeload provider (cycling)."""
    return PLACELOAD_AGGREGATES[: i % 3 + 1], PLACELOAD_TRAITS[: i % 3 + 1]


def load_flat(port: int, count: int = 1000) -> None:
    def make(client: Client, i: int) -> None:
        aggregates, traits = placeload_shape(i)
        name = str(uuid.UUID(int=i + 1))
        provider(
            client,
            name,
            rp_uuid=name,
            inventories=PLACELOAD_INVENTORY,
            traits=traits,
            aggregates=aggregates,
        )

    in_parallel(port, count, make)


def load_nested(port: int, count: int = 1000) -> None:
    Client(port).call("PUT", "/traits/CUSTOM_FOO")

    def make(client: Client, i: int) -> None:
        cn = provider(
            client,
            f"cn-{i}",
            inventories={"DISK_GB": {"total": 20480}},
            traits=["COMPUTE_VOLUME_MULTI_ATTACH"],
        )
        numa0 = provider(
            client,
            f"numa0-{i}",
            cn,
            traits=["HW_NUMA_ROOT"],
            inventories={
                "VCPU": {"total": 4, "reserved": 2},
                "MEMORY_MB": {"total": 2048, "min_unit": 512, "step_size": 256},
            },
        )
        provider(client, f"fpga0-{i}", numa0, inventories={"FPGA": {"total": 1}})
        provider(client, f"pgpu0-{i}", numa0, inventories={"VGPU": {"total": 8}})
        numa1 = provider(
            client,
            f"numa1-{i}",
            cn,
            traits=["HW_NUMA_ROOT", "CUSTOM_FOO"],
            inventories={
                "VCPU": {"total": 4},
                "MEMORY_MB": {"total": 2048, "min_unit": 256, "max_unit": 1024},
            },
        )
        provider(client, f"fpga1_0-{i}", numa1, inventories={"FPGA": {"total": 1}})
        provider(client, f"fpga1_1-{i}", numa1, inventories={"FPGA": {"total": 1}})

    in_parallel(port, count, make)


def load_wide(port: int) -> None:
    client = Client(port)
    root = provider(client, "wide-root", inventories={"VCPU": {"total": 64}})
    for n in range(8):
        provider(client, f"wide-child-{n}", root, inventories={"FPGA": {"total": 1}})


def bulk_flat(db_url: str, count: int) -> None:
    """Rows of ``count`` placeload providers written straight into the database.

    Both servers get exactly these rows (same uuids, ids and order), in the
    schema their own ``db sync`` made, after their start-up sync of the
    standard traits and classes.
    """
    from placement.db import tables

    engine = sqlalchemy.create_engine(db_url)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with engine.begin() as conn:
        classes = dict(
            conn.execute(select(tables.resource_classes.c.name, tables.resource_classes.c.id)).all()
        )
        traits = dict(conn.execute(select(tables.traits.c.name, tables.traits.c.id)).all())
        conn.execute(
            insert(tables.placement_aggregates),
            [
                {"id": n + 1, "uuid": agg, "created_at": now}
                for n, agg in enumerate(PLACELOAD_AGGREGATES)
            ],
        )
        for start in range(0, count, 5000):
            rows = range(start, min(count, start + 5000))
            conn.execute(
                insert(tables.resource_providers),
                [
                    {
                        "id": i + 1,
                        "uuid": str(uuid.UUID(int=i + 1)),
                        "name": f"flat-{i}",
                        "generation": 3,
                        "root_provider_id": i + 1,
                        "created_at": now,
                    }
                    for i in rows
                ],
            )
            conn.execute(
                insert(tables.inventories),
                [
                    {
                        "resource_provider_id": i + 1,
                        "resource_class_id": classes[rc],
                        "total": inv["total"],
                        "reserved": 0,
                        "min_unit": inv["min_unit"],
                        "max_unit": inv["max_unit"],
                        "step_size": 1,
                        "allocation_ratio": 1.0,
                        "created_at": now,
                    }
                    for i in rows
                    for rc, inv in PLACELOAD_INVENTORY.items()
                ],
            )
            conn.execute(
                insert(tables.resource_provider_aggregates),
                [
                    {
                        "resource_provider_id": i + 1,
                        "aggregate_id": PLACELOAD_AGGREGATES.index(agg) + 1,
                        "created_at": now,
                    }
                    for i in rows
                    for agg in placeload_shape(i)[0]
                ],
            )
            conn.execute(
                insert(tables.resource_provider_traits),
                [
                    {"resource_provider_id": i + 1, "trait_id": traits[name], "created_at": now}
                    for i in rows
                    for name in placeload_shape(i)[1]
                ],
            )
    if engine.dialect.name == "sqlite":
        # Fold the bulk write into the database file, as a server running
        # for a while would have: readers then do not wade through the WAL.
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()


# --- measuring -------------------------------------------------------------------


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    #: Latencies of requests sent one at a time (no queueing in the server).
    alone: list[float] = field(default_factory=list)
    errors: int = 0
    wall: float = 0.0
    timed_out: bool = False
    #: The server was not part of this run (``--servers``).
    skipped: bool = False
    candidates: int | None = None

    @property
    def p50(self) -> float | None:
        return statistics.median(self.latencies) if self.latencies else None

    @property
    def alone_p50(self) -> float | None:
        return statistics.median(self.alone) if self.alone else None

    #: 1-minute load average when the query's first request began and its last ended.
    load: tuple[float, float] | None = None
    #: The server's memory after the timed requests: PSS summed over gunicorn's
    #: master and workers (RSS would count their shared pages once per process).
    pss_bytes: int | None = None

    def _percentile(self, share: float) -> float | None:
        if not self.latencies:
            return None
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]

    @property
    def p95(self) -> float | None:
        return self._percentile(0.95)

    @property
    def p99(self) -> float | None:
        return self._percentile(0.99)

    @property
    def rps(self) -> float | None:
        return len(self.latencies) / self.wall if self.latencies and self.wall else None


def measure(
    port: int, path: str, *, requests: int, concurrency: int, budget: float, timeout: float
) -> Stats:
    """Send ``requests`` GETs from ``concurrency`` clients (stop after ``budget`` s)."""
    stats = Stats()
    load_before = os.getloadavg()[0]
    probe = Client(port, timeout=timeout)
    try:
        started = time.perf_counter()
        status, body = probe.call("GET", path)
        first = time.perf_counter() - started
    except (TimeoutError, OSError) as error:
        print(f"  no answer to GET {path[:60]}...: {error!r}", file=sys.stderr)
        stats.timed_out = True
        return stats
    if status != 200:
        raise RuntimeError(f"GET {path} -> {status}: {body}")
    stats.candidates = len(body["allocation_requests"])
    stats.alone.append(first)
    if first > budget:
        stats.latencies, stats.wall = [first], first
        stats.load = (load_before, os.getloadavg()[0])
        return stats
    for _ in range(ALONE - 1):
        begin = time.perf_counter()
        probe.fetch("GET", path)
        stats.alone.append(time.perf_counter() - begin)
    lock = threading.Lock()
    remaining = [requests]
    deadline = time.monotonic() + budget

    def worker() -> None:
        client = Client(port, timeout=timeout)
        while True:
            with lock:
                if remaining[0] <= 0 or time.monotonic() > deadline:
                    return
                remaining[0] -= 1
            begin = time.perf_counter()
            try:
                status, _ = client.fetch("GET", path)
            except (TimeoutError, OSError):
                status = 599
            elapsed = time.perf_counter() - begin
            with lock:
                if status == 200:
                    stats.latencies.append(elapsed)
                else:
                    stats.errors += 1

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    begin = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats.wall = time.perf_counter() - begin
    stats.load = (load_before, os.getloadavg()[0])
    return stats


# --- workloads ---------------------------------------------------------------------


@dataclass
class Row:
    workload: str
    query: str
    ours: Stats
    upstream: Stats


class _ServerDied(Exception):
    """The server exited while the workload was being loaded."""


def _run_one(
    name: str,
    flavor: Flavor,
    loader,
    queries: list[tuple[str, str]],
    db: str | None,
    workdir: str,
    args: argparse.Namespace,
) -> list[Stats]:
    """Fresh database, start the server, load the workload, time its queries."""
    with fresh_database(db, workdir, f"{name}_{flavor.name}") as url:
        server = Server(flavor, url, args.port, workdir)
        server.start()
        try:
            began = time.perf_counter()
            RETRIED[0] = 0
            try:
                if isinstance(loader, int):
                    bulk_flat(url, loader)
                else:
                    loader(args.port)
            except Exception:
                print(
                    f"  {flavor.name}: loading failed; server log ends with:\n{server.log_tail()}",
                    file=sys.stderr,
                )
                if server.process is not None and server.process.poll() is not None:
                    raise _ServerDied() from None
                raise
            print(
                f"  {flavor.name}: loaded {name} in "
                f"{time.perf_counter() - began:.1f} s ({RETRIED[0]} calls retried)",
                file=sys.stderr,
            )
            gather_statistics(url)
            results = [_time(name, args, query) for _, query in queries]
            memory = server.pss_bytes()
            for stats in results:
                stats.pss_bytes = memory
            if any(stats.timed_out or stats.errors for stats in results):
                print(
                    f"  {flavor.name}: failures; server log ends with:\n{server.log_tail()}",
                    file=sys.stderr,
                )
            return results
        finally:
            server.stop()


def run_workload(
    name: str, flavors: list[Flavor], db: str | None, workdir: str, args: argparse.Namespace
) -> list[Row]:
    """Load and time one workload on each server in turn."""
    plans = {
        "flat": [(load_flat, [("flat 1000", FLAT_QUERY)])],
        "nested": [(load_nested, [("nested 1000x7", NESTED_QUERY)])],
        "wide": [
            (load_wide, [("wide 8x8", WIDE_QUERY), ("wide 8x8 limit=10", WIDE_QUERY + "&limit=10")])
        ],
        "scale": [
            (
                size,
                [
                    (f"scale {size // 1000}k", FLAT_QUERY),
                    (f"scale {size // 1000}k limit=10", FLAT_QUERY + "&limit=10"),
                ],
            )
            for size in args.scale_sizes
        ],
    }[name]
    rows: list[Row] = []
    for loader, queries in plans:
        results: dict[str, list[Stats]] = {}
        for flavor in flavors:
            for attempt in range(1, 4):
                try:
                    results[flavor.name] = _run_one(
                        name, flavor, loader, queries, db, workdir, args
                    )
                    break
                except _ServerDied:
                    print(
                        f"  {flavor.name}: the server died while loading (attempt "
                        f"{attempt}); again on a fresh database",
                        file=sys.stderr,
                    )
            else:
                raise RuntimeError(f"{flavor.name}: could not load {name}")
        for index, (label, query) in enumerate(queries):
            rows.append(
                Row(
                    label,
                    query,
                    *(
                        results[name][index] if name in results else Stats(skipped=True)
                        for name in ("ours", "upstream")
                    ),
                )
            )
            _print_row(rows[-1])
    return rows


def run_claims(
    flavors: list[Flavor], db: str | None, workdir: str, args: argparse.Namespace
) -> dict[str, dict]:
    """``claims.py`` against each server in turn, each on a fresh database."""
    summaries: dict[str, dict] = {}
    for flavor in flavors:
        with fresh_database(db, workdir, f"claims_{flavor.name}") as url:
            server = Server(flavor, url, args.port, workdir)
            server.start()
            load_before = os.getloadavg()[0]
            try:
                done = subprocess.run(
                    [
                        sys.executable,
                        os.path.join(HERE, "claims.py"),
                        "--url",
                        f"http://127.0.0.1:{args.port}",
                        *CLAIMS_ARGS,
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                memory = server.pss_bytes()
            finally:
                server.stop()
        if not done.stdout.strip():
            raise RuntimeError(f"{flavor.name}: claims.py failed:\n{done.stderr[-2000:]}")
        summaries[flavor.name] = json.loads(done.stdout.strip().splitlines()[-1])
        summaries[flavor.name]["pss_mib"] = None if memory is None else round(memory / 2**20)
        summaries[flavor.name]["load"] = f"{load_before:.1f}→{os.getloadavg()[0]:.1f}"
        print(f"  {flavor.name}: {summaries[flavor.name]}", file=sys.stderr)
    return summaries


def _time(workload: str, args: argparse.Namespace, query: str) -> Stats:
    path = f"/allocation_candidates?{query}"
    if workload == "scale":
        return measure(
            args.port,
            path,
            requests=args.scale_requests,
            concurrency=1,
            budget=args.budget,
            timeout=args.timeout,
        )
    return measure(
        args.port,
        path,
        requests=args.requests,
        concurrency=CONCURRENCY,
        budget=args.budget,
        timeout=args.timeout,
    )


# --- report ------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value * 1000:.1f}"


def _ratio(ours: float | None, upstream: float | None) -> str:
    if not ours or not upstream:
        return "–"
    return f"{upstream / ours:.1f}x"


def _cell(stats: Stats) -> list[str]:
    if stats.skipped:
        return ["not run", "", "", "", "", "", ""]
    if stats.timed_out:
        return ["no answer", "", "", "", "", "", ""]
    rps = "–" if stats.rps is None else f"{stats.rps:.1f}"
    memory = "–" if stats.pss_bytes is None else f"{stats.pss_bytes / 2**20:.0f}"
    return [
        _ms(stats.alone_p50),
        _ms(stats.p50),
        _ms(stats.p95),
        _ms(stats.p99),
        rps,
        str(stats.candidates),
        memory,
    ]


def _load(row: Row) -> str:
    """The 1-minute load average while each server was timed: start→end."""
    spans = [
        f"{name} {stats.load[0]:.1f}→{stats.load[1]:.1f}"
        for name, stats in (("ours", row.ours), ("upstream", row.upstream))
        if stats.load is not None
    ]
    return ", ".join(spans) or "–"


def table(rows: list[Row]) -> str:
    head = (
        "| workload | ours 1 client p50 ms | ours p50 ms | ours p95 ms | ours p99 ms | "
        "ours req/s | ours answers | ours PSS MiB | upstream 1 client p50 ms | upstream p50 ms | "
        "upstream p95 ms | upstream p99 ms | upstream req/s | upstream answers | "
        "upstream PSS MiB | p50 speed-up | req/s ratio | load |"
    )
    lines = [head, "|" + "---|" * 18]
    for row in rows:
        upstream_p50 = None if row.upstream.timed_out else row.upstream.p50
        upstream_rps = None if row.upstream.timed_out else row.upstream.rps
        lines.append(
            "| "
            + " | ".join(
                [
                    row.workload,
                    *_cell(row.ours),
                    *_cell(row.upstream),
                    _ratio(row.ours.p50, upstream_p50),
                    _ratio(upstream_rps, row.ours.rps),
                    _load(row),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def _print_row(row: Row) -> None:
    print(table([row]).splitlines()[-1], file=sys.stderr)


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def claims_table(summaries: dict[str, dict]) -> str:
    """One line per server: what ``claims.py`` reported, and the claims/s ratio."""
    lines = [
        "| server | claims | claims/s | claim p50 ms | claim p95 ms | claim p99 ms | "
        "409 conflicts | 5xx | usage = claims, no overcommit | PSS MiB after | load |",
        "|" + "---|" * 11,
    ]
    for name, summary in summaries.items():
        lines.append(
            f"| {name} | {summary['claims']} | {summary['claims_per_s']} | "
            f"{summary['claim_p50_ms']} | {summary['claim_p95_ms']} | "
            f"{summary['claim_p99_ms']} | {summary['conflicts']} | {summary['server_errors']} | "
            f"{'yes' if summary['verified'] else 'NO'} | {summary['pss_mib']} | "
            f"{summary['load']} |"
        )
    if len(summaries) == 2:
        ours, upstream = summaries["ours"]["claims_per_s"], summaries["upstream"]["claims_per_s"]
        lines += ["", f"claims/s ratio (ours / upstream): {_ratio(upstream, ours)}"]
    return "\n".join(lines)


def report(rows: list[Row], claims: dict[str, dict], args: argparse.Namespace) -> str:
    kind = "SQLite" if args.db is None else sqlalchemy.engine.make_url(args.db).get_backend_name()
    return "\n".join(
        [
            f"### {kind} — {datetime.date.today().isoformat()}",
            "",
            f"* machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}, "
            f"Python {platform.python_version()}",
            f"* commit: {_commit()} (working tree as of the run)",
            f"* gunicorn for both: `{' '.join(GUNICORN_ARGS)}`; clients: {CONCURRENCY} concurrent "
            f"keep-alive connections (scale: 1), budget {args.budget:.0f} s per query, "
            f"client timeout {args.timeout:.0f} s",
            f"* command: `{' '.join(sys.argv)}`",
            "",
            table(rows) if rows else "",
            "",
            *(
                [
                    "Claims (`benchmarks/claims.py " + " ".join(CLAIMS_ARGS) + "`):",
                    "",
                    claims_table(claims),
                    "",
                ]
                if claims
                else []
            ),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database server URL (default: SQLite files)")
    parser.add_argument("--workloads", default="flat,nested,wide,scale,claims")
    parser.add_argument("--upstream-venv", default=DEFAULT_UPSTREAM)
    parser.add_argument("--ours-venv", default=os.path.join(ROOT, ".venv"))
    parser.add_argument("--port", type=int, default=18860)
    parser.add_argument(
        "--requests", type=int, default=200, help="requests per query at concurrency 10"
    )
    parser.add_argument("--scale-requests", type=int, default=7)
    parser.add_argument(
        "--scale-sizes", default="1000,10000,50000", type=lambda v: [int(x) for x in v.split(",")]
    )
    parser.add_argument(
        "--budget", type=float, default=60.0, help="seconds of measuring per query at most"
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds a single request may take"
    )
    parser.add_argument("--results", help="append the table to this Markdown file")
    parser.add_argument(
        "--servers",
        default="ours,upstream",
        help="which servers to run (for trying changes out: ours)",
    )
    args = parser.parse_args(argv)
    venvs = {"ours": args.ours_venv, "upstream": args.upstream_venv}
    flavors = [Flavor(name, venvs[name]) for name in args.servers.split(",")]
    workdir = tempfile.mkdtemp(prefix="placement-bench-")
    rows: list[Row] = []
    claims: dict[str, dict] = {}
    try:
        for name in args.workloads.split(","):
            print(f"workload {name}", file=sys.stderr)
            if name == "claims":
                claims = run_claims(flavors, args.db, workdir, args)
            else:
                rows += run_workload(name, flavors, args.db, workdir, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(rows, claims, args)
    print(text)
    if args.results:
        with open(args.results, "a") as results:
            results.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
