"""Placement at scale: a cloud of N compute nodes, ours and upstream on the same database.

For each size (``--nodes``) the tool makes one database (``bench_scale_*``)
on the chosen server, creates the schema with our ``placement-manage db
sync``, writes the cloud's rows straight into the tables (PostgreSQL:
``COPY``; MariaDB: multi-row ``INSERT`` batches) and gathers statistics
(``ANALYZE``). It then serves that database with our server and upstream's
in alternating rounds (ours 1, upstream 1, ours 2, ...; one server at a
time, each freshly started, gunicorn with 2 workers) and times nova's
``GET /allocation_candidates`` shapes, the provider list with capacity
filters and single claims. Last, each server is started afresh, takes a
burst of claims from a few threads, and answers every query once.

The cloud, for N nodes: each node a root provider with VCPU 64 (ratio 4),
MEMORY_MB 262144 and DISK_GB 4000, holding 10 servers of VCPU 2, MEMORY_MB
4096, DISK_GB 20 (10 N consumers, 30 N allocations); every 10th node two
child pGPU providers of VGPU 4; one aggregate per quarter of the nodes
(the "AZs"); HW_CPU_X86_AVX2 on even nodes, CUSTOM_RARE_FPGA on 1 % and
COMPUTE_STATUS_DISABLED on 0.1 % of them.

Usage::

    .venv/bin/python benchmarks/scale.py --db postgresql --nodes 10000,100000 \\
        [--rounds 3] [--repeats 3] [--servers ours,upstream] [--ours-src PATH] \\
        [--keep] [--results benchmarks/RESULTS.md]

See ``benchmarks/README.md`` for what is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection, Engine

from placement.db import tables
from placement.db.standard import sync_standard_names

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.candidates import (  # noqa: E402
    DEFAULT_UPSTREAM,
    GUNICORN_ARGS,
    Client,
    Flavor,
    Server,
    fresh_database,
)

DEFAULT_URLS = {
    "postgresql": "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres",
    "mysql": "mysql+pymysql://root@127.0.0.1:3306/",
}
MICROVERSION = "1.39"

# --- the cloud ---------------------------------------------------------------------

#: Per node: resource class -> (total, allocation_ratio).
NODE_INVENTORY = {"VCPU": (64, 4.0), "MEMORY_MB": (262144, 1.0), "DISK_GB": (4000, 1.0)}
#: What each server (consumer) holds on its node, and what a claim asks for.
FLAVOR = {"VCPU": 2, "MEMORY_MB": 4096, "DISK_GB": 20}
SERVERS_PER_NODE = 10
GPU_EVERY = 10  # nodes with two pGPU children
GPUS_PER_NODE = 2
VGPU_TOTAL = 4
AZ_COUNT = 4
RARE_TRAIT = "CUSTOM_RARE_FPGA"
#: Node traits: name -> (every, offset): node i has it when i % every == offset.
NODE_TRAITS = {
    "HW_CPU_X86_AVX2": (2, 0),
    RARE_TRAIT: (100, 3),
    "COMPUTE_STATUS_DISABLED": (1000, 7),
}
CONSUMERS_PER_PROJECT = 100
MYSQL_BATCH = 5000

# uuid namespaces (the high bits) of the loaded rows: deterministic, so a
# client can name any node without reading the database.
_PROVIDER, _CONSUMER, _AGGREGATE, _PROJECT, _USER = 1, 2, 3, 4, 5


def _uuid(kind: int, number: int) -> str:
    """The deterministic uuid of row ``number`` of one kind."""
    return str(uuid.UUID(int=(kind << 96) | number))


def az_uuid(az: int) -> str:
    """The uuid of the aggregate of the ``az``-th quarter of the nodes."""
    return _uuid(_AGGREGATE, az + 1)


@dataclass(frozen=True)
class Cloud:
    """The shape of a cloud of ``nodes`` compute nodes; all ids are derived."""

    nodes: int

    def node_uuid(self, i: int) -> str:
        """The uuid of node ``i`` (0-based; its provider id is ``i + 1``)."""
        return _uuid(_PROVIDER, i + 1)

    def gpu_ids(self, i: int) -> list[int]:
        """Provider ids of node ``i``'s pGPU children (none for most nodes)."""
        if i % GPU_EVERY:
            return []
        first = self.nodes + (i // GPU_EVERY) * GPUS_PER_NODE + 1
        return list(range(first, first + GPUS_PER_NODE))

    def az(self, i: int) -> int:
        """The quarter of the cloud node ``i`` is in."""
        return i * AZ_COUNT // self.nodes

    def traits(self, i: int) -> list[str]:
        """The traits of node ``i``."""
        return [name for name, (every, at) in NODE_TRAITS.items() if i % every == at]

    @property
    def projects(self) -> int:
        """How many projects (and users) the consumers are spread over."""
        return max(1, self.nodes * SERVERS_PER_NODE // CONSUMERS_PER_PROJECT)

    def with_trait(self, name: str) -> int:
        """How many nodes have trait ``name``."""
        every, at = NODE_TRAITS[name]
        return len(range(at, self.nodes, every))

    @property
    def gpu_nodes(self) -> int:
        """How many nodes have pGPU children."""
        return len(range(0, self.nodes, GPU_EVERY))


Row = tuple[Any, ...]


@dataclass
class TableRows:
    """Rows for one table: its name, the columns given, and the rows (lazily)."""

    table: str
    columns: tuple[str, ...]
    rows: Iterable[Row]


def provider_rows(cloud: Cloud, now: datetime.datetime) -> Iterator[Row]:
    """Nodes (ids 1..N) first, then their pGPU children, so parents come first."""
    root_generation = 3 + SERVERS_PER_NODE  # inventory, traits, aggregates, each claim
    for i in range(cloud.nodes):
        yield (i + 1, cloud.node_uuid(i), f"cn-{i:06d}", root_generation, i + 1, None, now)
    for i in range(0, cloud.nodes, GPU_EVERY):
        for n, rp_id in enumerate(cloud.gpu_ids(i)):
            name = f"cn-{i:06d}-pgpu{n}"
            yield (rp_id, _uuid(_PROVIDER, rp_id), name, 1, i + 1, i + 1, now)


def inventory_rows(cloud: Cloud, classes: dict[str, int], now: datetime.datetime) -> Iterator[Row]:
    """Each node's VCPU, MEMORY_MB and DISK_GB; each pGPU's VGPU."""
    row_id = 0
    for i in range(cloud.nodes):
        for name, (total, ratio) in NODE_INVENTORY.items():
            row_id += 1
            yield (row_id, i + 1, classes[name], total, 0, 1, total, 1, ratio, now)
        for rp_id in cloud.gpu_ids(i):
            row_id += 1
            yield (row_id, rp_id, classes["VGPU"], VGPU_TOTAL, 0, 1, VGPU_TOTAL, 1, 1.0, now)


def aggregate_rows(now: datetime.datetime) -> Iterator[Row]:
    """The AZ aggregates (ids 1..4)."""
    for az in range(AZ_COUNT):
        yield (az + 1, az_uuid(az), now)


def provider_aggregate_rows(cloud: Cloud, now: datetime.datetime) -> Iterator[Row]:
    """Each node (roots only) in its quarter's aggregate."""
    for i in range(cloud.nodes):
        yield (i + 1, cloud.az(i) + 1, now)


def provider_trait_rows(
    cloud: Cloud, traits: dict[str, int], now: datetime.datetime
) -> Iterator[Row]:
    """The traits of each node."""
    for i in range(cloud.nodes):
        for name in cloud.traits(i):
            yield (traits[name], i + 1, now)


def external_rows(count: int, kind: int, now: datetime.datetime) -> Iterator[Row]:
    """Projects or users: ids 1..count, keystone-like hex external ids."""
    for n in range(1, count + 1):
        yield (n, uuid.UUID(_uuid(kind, n)).hex, now)


def project_external_id(n: int) -> str:
    """The external id of project (and user) number ``n`` (1-based)."""
    return uuid.UUID(_uuid(_PROJECT, n)).hex


def consumer_rows(cloud: Cloud, now: datetime.datetime) -> Iterator[Row]:
    """10 servers per node, spread over the projects and users (generation 1:
    created, then given their allocations)."""
    projects = cloud.projects
    for c in range(cloud.nodes * SERVERS_PER_NODE):
        owner = c % projects + 1
        yield (c + 1, _uuid(_CONSUMER, c + 1), owner, owner, 1, None, now)


def allocation_rows(cloud: Cloud, classes: dict[str, int], now: datetime.datetime) -> Iterator[Row]:
    """Each server's VCPU, MEMORY_MB and DISK_GB on its node."""
    usage = [(classes[name], used) for name, used in FLAVOR.items()]
    row_id = 0
    for c in range(cloud.nodes * SERVERS_PER_NODE):
        consumer = _uuid(_CONSUMER, c + 1)
        node_id = c // SERVERS_PER_NODE + 1
        for class_id, used in usage:
            row_id += 1
            yield (row_id, node_id, consumer, class_id, used, now)


def cloud_rows(cloud: Cloud, classes: dict[str, int], traits: dict[str, int]) -> list[TableRows]:
    """Every table's rows, in an order that satisfies the foreign keys."""
    now = tables.utcnow()
    return [
        TableRows("projects", ("id", "external_id", "created_at"), external_rows(
            cloud.projects, _PROJECT, now)),
        TableRows("users", ("id", "external_id", "created_at"), external_rows(
            cloud.projects, _USER, now)),
        TableRows("placement_aggregates", ("id", "uuid", "created_at"), aggregate_rows(now)),
        TableRows(
            "resource_providers",
            ("id", "uuid", "name", "generation", "root_provider_id", "parent_provider_id",
             "created_at"),
            provider_rows(cloud, now),
        ),
        TableRows(
            "inventories",
            ("id", "resource_provider_id", "resource_class_id", "total", "reserved", "min_unit",
             "max_unit", "step_size", "allocation_ratio", "created_at"),
            inventory_rows(cloud, classes, now),
        ),
        TableRows(
            "resource_provider_aggregates",
            ("resource_provider_id", "aggregate_id", "created_at"),
            provider_aggregate_rows(cloud, now),
        ),
        TableRows(
            "resource_provider_traits",
            ("trait_id", "resource_provider_id", "created_at"),
            provider_trait_rows(cloud, traits, now),
        ),
        TableRows(
            "consumers",
            ("id", "uuid", "project_id", "user_id", "generation", "consumer_type_id",
             "created_at"),
            consumer_rows(cloud, now),
        ),
        TableRows(
            "allocations",
            ("id", "resource_provider_id", "consumer_id", "resource_class_id", "used",
             "created_at"),
            allocation_rows(cloud, classes, now),
        ),
    ]  # fmt: skip


# --- loading -------------------------------------------------------------------------


def loader_url(url: str) -> sqlalchemy.URL:
    """``url`` with the driver the loader needs: psycopg 3 (for ``COPY``) on PostgreSQL."""
    parsed = sqlalchemy.make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return parsed.set(drivername="postgresql+psycopg")
    return parsed


def name_ids(engine: Engine) -> tuple[dict[str, int], dict[str, int]]:
    """Resource class and trait ids by name, after making sure the standard
    ones and the cloud's custom trait exist."""
    sync_standard_names(engine)
    trait_table, class_table = tables.traits, tables.resource_classes
    with engine.begin() as conn:
        found = conn.execute(select(trait_table.c.id).where(trait_table.c.name == RARE_TRAIT))
        if found.first() is None:
            conn.execute(insert(trait_table), [{"name": RARE_TRAIT, "created_at": tables.utcnow()}])
        classes: dict[str, int] = {
            name: id_ for name, id_ in conn.execute(select(class_table.c.name, class_table.c.id))
        }
        traits: dict[str, int] = {
            name: id_ for name, id_ in conn.execute(select(trait_table.c.name, trait_table.c.id))
        }
    return classes, traits


def copy_rows(dbapi: Any, part: TableRows) -> int:
    """Write one table's rows with PostgreSQL's ``COPY`` (psycopg 3); the count."""
    count = 0
    with dbapi.cursor() as cursor:
        with cursor.copy(f"COPY {part.table} ({', '.join(part.columns)}) FROM STDIN") as copy:
            for row in part.rows:
                copy.write_row(row)
                count += 1
    return count


def insert_rows(dbapi: Any, part: TableRows, placeholder: str) -> int:
    """Write one table's rows as multi-row INSERTs (``executemany`` batches); the count."""
    marks = ", ".join([placeholder] * len(part.columns))
    statement = f"INSERT INTO {part.table} ({', '.join(part.columns)}) VALUES ({marks})"
    count = 0
    cursor = dbapi.cursor()
    batch: list[Row] = []
    for row in part.rows:
        batch.append(row)
        if len(batch) == MYSQL_BATCH:
            cursor.executemany(statement, batch)
            count, batch = count + len(batch), []
    if batch:
        cursor.executemany(statement, batch)
        count += len(batch)
    cursor.close()
    return count


def check_columns(part: TableRows) -> None:
    """Fail early when the loader names a column the schema does not have."""
    unknown = set(part.columns) - set(tables.metadata.tables[part.table].c.keys())
    if unknown:
        raise ValueError(f"{part.table} has no column(s) {sorted(unknown)}")


def write_rows(engine: Engine, parts: list[TableRows]) -> dict[str, int]:
    """Write every table's rows on one raw connection, a transaction per table;
    rows written per table."""
    dialect = engine.dialect.name
    raw = engine.raw_connection()
    written: dict[str, int] = {}
    try:
        dbapi: Any = raw.driver_connection
        if dialect in ("mysql", "mariadb"):
            with contextlib.closing(dbapi.cursor()) as cursor:
                cursor.execute("SET SESSION unique_checks = 0, foreign_key_checks = 0")
        for part in parts:
            check_columns(part)
            if dialect == "postgresql":
                written[part.table] = copy_rows(dbapi, part)
            else:
                placeholder = "?" if engine.dialect.paramstyle == "qmark" else "%s"
                written[part.table] = insert_rows(dbapi, part, placeholder)
            raw.commit()
    finally:
        raw.close()
    return written


def reset_sequences(conn: Connection, parts: list[TableRows]) -> None:
    """PostgreSQL: move each ``id`` sequence past the explicit ids written, so
    rows the API creates later get fresh ones."""
    for part in parts:
        if "id" not in part.columns:
            continue
        conn.exec_driver_sql(
            f"SELECT setval(pg_get_serial_sequence('{part.table}', 'id'), "
            f"(SELECT max(id) FROM {part.table}))"
            f" WHERE pg_get_serial_sequence('{part.table}', 'id') IS NOT NULL"
        )


def analyze(engine: Engine, names: Sequence[str]) -> None:
    """Gather the optimizer's statistics, as a cloud's database has them."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if engine.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE")
        elif engine.dialect.name in ("mysql", "mariadb"):
            conn.exec_driver_sql(f"ANALYZE TABLE {', '.join(names)}").all()
        else:
            conn.exec_driver_sql("ANALYZE")


@dataclass
class Loaded:
    """What loading a cloud wrote and how long it took."""

    rows: dict[str, int]
    seconds: float


def load_cloud(url: str, nodes: int) -> Loaded:
    """Write the cloud of ``nodes`` compute nodes into the (migrated, empty)
    database at ``url``, fix up sequences and gather statistics."""
    began = time.perf_counter()
    engine = sqlalchemy.create_engine(loader_url(url))
    try:
        classes, traits = name_ids(engine)
        parts = cloud_rows(Cloud(nodes), classes, traits)
        written = write_rows(engine, parts)
        if engine.dialect.name == "postgresql":
            with engine.begin() as conn:
                reset_sequences(conn, parts)
        analyze(engine, [part.table for part in parts])
    finally:
        engine.dispose()
    return Loaded(written, time.perf_counter() - began)


# --- databases ---------------------------------------------------------------------


def db_sync(url: str, workdir: str) -> None:
    """Create the schema with our ``placement-manage db sync``."""
    conf = os.path.join(workdir, "manage.conf")
    with open(conf, "w") as handle:
        handle.write(f"[placement_database]\nconnection = {url}\n")
    manage = os.path.join(ROOT, ".venv", "bin", "placement-manage")
    subprocess.run(
        [manage, "--config-file", conf, "db", "sync"], check=True, capture_output=True, cwd=workdir
    )


def cancel_queries(url: str) -> None:
    """Stop the statements still running on database ``url`` (after a client timeout)."""
    engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                conn.exec_driver_sql(
                    "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = "
                    "current_database() AND pid <> pg_backend_pid() AND state = 'active'"
                ).all()
                return
            ids = conn.exec_driver_sql(
                "SELECT id FROM information_schema.processlist WHERE db = DATABASE() "
                "AND command = 'Query' AND id <> CONNECTION_ID()"
            ).scalars()
            for query_id in list(ids):
                with contextlib.suppress(sqlalchemy.exc.DBAPIError):
                    conn.exec_driver_sql(f"KILL QUERY {int(query_id)}")
    finally:
        engine.dispose()


def server_version(url: str) -> str:
    """The database server's own version string, shortened."""
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            version = conn.exec_driver_sql("SELECT version()").scalar_one()
    finally:
        engine.dispose()
    return " ".join(str(version).split()[:2]) if "PostgreSQL" in version else str(version)


# --- servers -------------------------------------------------------------------------


class ScaleServer(Server):
    """A gunicorn-served Placement on a database that already has its schema
    and cloud (no ``db sync``); ``pythonpath`` goes first on its PYTHONPATH."""

    def __init__(
        self, flavor: Flavor, db_url: str, port: int, workdir: str, pythonpath: str | None = None
    ) -> None:
        super().__init__(flavor, db_url, port, workdir)
        self.pythonpath = pythonpath

    def start(self) -> None:
        self.write_conf()
        saved = os.environ.get("PYTHONPATH")
        if self.pythonpath:
            os.environ["PYTHONPATH"] = self.pythonpath
        try:
            for attempt in range(1, 4):
                if self._launch():
                    return
                self.stop()
                log(f"{self.flavor.name}: server did not start (attempt {attempt})")
        finally:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved
        raise RuntimeError(f"{self.flavor.name} server did not start:\n{self.log_tail()}")

    def restart(self) -> None:
        """Stop and start again (after a timed-out request kept a worker busy)."""
        self.stop()
        self.start()


@contextlib.contextmanager
def serving(
    flavor: Flavor, url: str, args: argparse.Namespace, workdir: str
) -> Iterator[ScaleServer]:
    """``flavor``'s server, freshly started on ``url``; stopped afterwards."""
    pythonpath = args.ours_src if flavor.name == "ours" else None
    server = ScaleServer(flavor, url, args.port, workdir, pythonpath)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --- timing --------------------------------------------------------------------------

RESOURCES = "resources=" + ",".join(f"{name}:{amount}" for name, amount in FLAVOR.items())
CANDIDATES = f"/allocation_candidates?{RESOURCES}"
#: Query 6's limit: the rare trait's holders at 10k nodes.
RARE_LIMIT = 100
QUERIES: list[tuple[str, str]] = [
    ("1 resources", f"{CANDIDATES}&limit=1000"),
    ("2 !COMPUTE_STATUS_DISABLED (nova)",
     f"{CANDIDATES}&required=!COMPUTE_STATUS_DISABLED&limit=1000"),
    ("3 member_of AZ1", f"{CANDIDATES}&member_of={az_uuid(1)}&limit=1000"),
    ("4 + 2 VGPU isolate",
     f"{CANDIDATES}&resources1=VGPU:1&resources2=VGPU:1&group_policy=isolate&limit=1000"),
    (f"5 required {RARE_TRAIT}", f"{CANDIDATES}&required={RARE_TRAIT}&limit=1000"),
    # The same answer at every size from 10k nodes: growth of the cloud alone.
    (f"6 required {RARE_TRAIT}, limit=100",
     f"{CANDIDATES}&required={RARE_TRAIT}&limit={RARE_LIMIT}"),
    ("provider list", f"/resource_providers?{RESOURCES}"),
]  # fmt: skip
CLAIM = "claim (PUT /allocations)"


@dataclass
class Timing:
    """The samples of one query on one server, and what went wrong."""

    seconds: list[float] = field(default_factory=list)
    answers: set[int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    timeouts: int = 0

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None


def answers(path: str, raw: bytes) -> int:
    """How many candidates (or providers) a 200 answer holds."""
    body = json.loads(raw)
    if path.startswith("/resource_providers"):
        return len(body["resource_providers"])
    return len(body["allocation_requests"])


def time_get(client: Client, path: str, timing: Timing) -> bool:
    """One timed GET into ``timing``; False when it timed out."""
    began = time.perf_counter()
    try:
        status, raw = client.fetch("GET", path, version=MICROVERSION)
    except TimeoutError:
        timing.timeouts += 1
        return False
    except OSError as error:
        timing.errors.append(type(error).__name__)
        return True
    elapsed = time.perf_counter() - began
    if status != 200:
        timing.errors.append(f"HTTP {status}")
        return True
    timing.seconds.append(elapsed)
    timing.answers.add(answers(path, raw))
    return True


def claim_body(cloud: Cloud, rng: random.Random) -> dict:
    """A new server's allocation on a random node, as nova writes it."""
    owner = rng.randrange(cloud.projects) + 1
    return {
        "allocations": {cloud.node_uuid(rng.randrange(cloud.nodes)): {"resources": dict(FLAVOR)}},
        "project_id": project_external_id(owner),
        "user_id": uuid.UUID(_uuid(_USER, owner)).hex,
        "consumer_generation": None,
        "consumer_type": "INSTANCE",
    }


def time_claim(client: Client, cloud: Cloud, rng: random.Random, timing: Timing) -> None:
    """One timed claim for a new consumer into ``timing``."""
    began = time.perf_counter()
    try:
        status, raw = client.fetch(
            "PUT", f"/allocations/{uuid.uuid4()}", claim_body(cloud, rng), version=MICROVERSION
        )
    except OSError as error:
        timing.errors.append(type(error).__name__)
        return
    if status == 204:
        timing.seconds.append(time.perf_counter() - began)
    else:
        timing.errors.append(f"HTTP {status}")


@dataclass
class ServerResult:
    """One server's timings at one size."""

    timings: dict[str, Timing] = field(default_factory=dict)
    pss: list[int] = field(default_factory=list)
    fresh: dict[str, Timing] = field(default_factory=dict)
    fresh_pss: int | None = None
    burst: Timing = field(default_factory=Timing)
    burst_seconds: float = 0.0
    gave_up: set[str] = field(default_factory=set)


def time_round(
    server: ScaleServer, cloud: Cloud, result: ServerResult, args: argparse.Namespace
) -> None:
    """One round on a running server: each query ``repeats`` times (fewer once
    its requests took ``budget`` seconds), then the claims."""
    client = Client(args.port, timeout=args.timeout)
    for label, path in QUERIES:
        if label in result.gave_up:
            continue
        timing = result.timings.setdefault(label, Timing())
        began = time.perf_counter()
        for repeat in range(args.repeats):
            if repeat and time.perf_counter() - began > args.budget:
                break  # a slow query: fewer samples this round
            if not time_get(client, path, timing):
                log(f"  {server.flavor.name}: {label}: no answer within {args.timeout:.0f} s")
                result.gave_up.add(label)
                cancel_queries(server.db_url)
                server.restart()
                client = Client(args.port, timeout=args.timeout)
                break
    rng = random.Random()
    claims = result.timings.setdefault(CLAIM, Timing())
    for _ in range(args.claims):
        time_claim(client, cloud, rng, claims)
    memory = server.pss_bytes()
    if memory is not None:
        result.pss.append(memory)


def burst(
    port: int, cloud: Cloud, count: int, threads: int, timeout: float
) -> tuple[Timing, float]:
    """``count`` claims from ``threads`` clients at once; their timings and the wall time."""
    timing = Timing()
    local = threading.local()
    lock = threading.Lock()

    def one(_: int) -> None:
        if not hasattr(local, "client"):
            local.client, local.rng = Client(port, timeout=timeout), random.Random()
        mine = Timing()
        time_claim(local.client, cloud, local.rng, mine)
        with lock:
            timing.seconds += mine.seconds
            timing.errors += mine.errors

    began = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(count)))
    return timing, time.perf_counter() - began


def fresh_round(
    server: ScaleServer, cloud: Cloud, result: ServerResult, args: argparse.Namespace
) -> None:
    """On a server just started: a burst of claims, then every query once."""
    result.burst, result.burst_seconds = burst(
        args.port, cloud, args.burst, args.burst_threads, args.timeout
    )
    client = Client(args.port, timeout=args.timeout)
    for label, path in QUERIES:
        timing = result.fresh.setdefault(label, Timing())
        if not time_get(client, path, timing):
            log(f"  {server.flavor.name} (fresh): {label}: no answer within {args.timeout:.0f} s")
            cancel_queries(server.db_url)
            server.restart()
            client = Client(args.port, timeout=args.timeout)
    result.fresh_pss = server.pss_bytes()


@dataclass
class SizeResult:
    """Everything measured at one size."""

    nodes: int
    loaded: Loaded
    servers: dict[str, ServerResult]
    load_average: tuple[float, float]
    wall: float


def run_size(
    nodes: int, flavors: list[Flavor], args: argparse.Namespace, workdir: str
) -> SizeResult:
    """Make and load the database for ``nodes``, then time every server on it."""
    began = time.perf_counter()
    cloud = Cloud(nodes)
    with fresh_database(args.url, workdir, f"scale_{nodes}", args.keep) as url:
        db_sync(url, workdir)
        loaded = load_cloud(url, nodes)
        log(f"{nodes} nodes: loaded in {loaded.seconds:.1f} s: {loaded.rows}")
        results = {flavor.name: ServerResult() for flavor in flavors}
        load_before = os.getloadavg()[0]
        for round_number in range(1, args.rounds + 1):
            for flavor in flavors:
                log(f"{nodes} nodes: round {round_number}, {flavor.name}")
                with serving(flavor, url, args, workdir) as server:
                    time_round(server, cloud, results[flavor.name], args)
        for flavor in flavors:
            log(f"{nodes} nodes: fresh {flavor.name} after a burst of {args.burst} claims")
            with serving(flavor, url, args, workdir) as server:
                fresh_round(server, cloud, results[flavor.name], args)
        load_after = os.getloadavg()[0]
    return SizeResult(
        nodes, loaded, results, (load_before, load_after), time.perf_counter() - began
    )


def log(message: str) -> None:
    """Progress on stderr, with the time of day."""
    print(f"{datetime.datetime.now():%H:%M:%S} {message}", file=sys.stderr, flush=True)


# --- report --------------------------------------------------------------------------


def _ms(seconds: float | None) -> str:
    return (
        "–"
        if seconds is None
        else f"{seconds * 1000:.0f}"
        if seconds >= 0.1
        else f"{seconds * 1000:.1f}"
    )


def _cell(timing: Timing | None) -> str:
    """A median in ms, or what happened instead."""
    if timing is None:
        return "not run"
    parts = [] if timing.median is None else [_ms(timing.median)]
    if timing.timeouts:
        parts.append(f"timeout ×{timing.timeouts}")
    if timing.errors:
        parts.append("errors: " + ", ".join(sorted(set(timing.errors))))
    return "; ".join(parts) or "–"


def _answers(timing: Timing | None) -> str:
    if timing is None or not timing.answers:
        return "–"
    return "/".join(str(n) for n in sorted(timing.answers))


def bound(timing: Timing | None, timeout: float) -> tuple[float, str] | None:
    """The median, or the client timeout as a floor (``">"``) when every
    request timed out; None when there is neither."""
    if timing is None:
        return None
    if timing.median is not None:
        return timing.median, ""
    return (timeout, ">") if timing.timeouts else None


def _ratio(ours: Timing | None, upstream: Timing | None, timeout: float) -> str:
    """upstream / ours; a bound when one of them never answered."""
    mine, theirs = bound(ours, timeout), bound(upstream, timeout)
    if mine is None or theirs is None or (mine[1] and theirs[1]):
        return "–"
    value = theirs[0] / mine[0]
    qualifier = "> " if theirs[1] else "< " if mine[1] else ""
    return f"{qualifier}{value:.1f}x" if value >= 0.1 else f"{qualifier}{value:.2f}x"


def _agree(ours: Timing | None, upstream: Timing | None) -> str:
    if ours is None or upstream is None or not ours.answers or not upstream.answers:
        return ""
    return "" if ours.answers == upstream.answers else " **differ**"


def _errors(timing: Timing) -> str:
    return f", {len(timing.errors)} failed: {sorted(set(timing.errors))}" if timing.errors else ""


def _mib(values: Sequence[int | None]) -> str:
    known = [value for value in values if value is not None]
    return f"{max(known) / 2**20:.0f}" if known else "–"


def size_table(size: SizeResult, timeout: float, label_of: str = "timings") -> list[str]:
    """Query | ours | upstream | ratio | answers, for the rounds or the fresh round."""
    ours, upstream = size.servers.get("ours"), size.servers.get("upstream")
    lines = [
        "| query | ours p50 ms | upstream p50 ms | upstream / ours | answers ours / upstream |",
        "|---|---|---|---|---|",
    ]
    labels = [label for label, _ in QUERIES] + ([CLAIM] if label_of == "timings" else [])
    for label in labels:
        mine = getattr(ours, label_of).get(label) if ours else None
        theirs = getattr(upstream, label_of).get(label) if upstream else None
        lines.append(
            f"| {label} | {_cell(mine)} | {_cell(theirs)} | {_ratio(mine, theirs, timeout)} | "
            f"{_answers(mine)} / {_answers(theirs)}{_agree(mine, theirs)} |"
        )
    return lines


def growth_table(sizes: list[SizeResult], timeout: float) -> list[str]:
    """log(t2/t1) / log(n2/n1) of each query between consecutive sizes."""
    pairs = list(zip(sizes, sizes[1:], strict=False))
    head = " | ".join(f"ours {a.nodes}→{b.nodes} | upstream {a.nodes}→{b.nodes}" for a, b in pairs)
    lines = [f"| query | {head} |", "|---|" + "---|---|" * len(pairs)]
    for label in [label for label, _ in QUERIES] + [CLAIM]:
        cells = [
            _exponent(a, b, name, label, timeout) for a, b in pairs for name in ("ours", "upstream")
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _exponent(a: SizeResult, b: SizeResult, name: str, label: str, timeout: float) -> str:
    if name not in a.servers or name not in b.servers:
        return "–"
    first = bound(a.servers[name].timings.get(label), timeout)
    second = bound(b.servers[name].timings.get(label), timeout)
    if first is None or second is None or first[1]:
        return "–"
    exponent = math.log(second[0] / first[0]) / math.log(b.nodes / a.nodes)
    return f"{'> ' if second[1] else ''}{exponent:.2f}"


def size_section(size: SizeResult, args: argparse.Namespace) -> list[str]:
    """The report of one size: load, the rounds, memory, the fresh round."""
    rows = size.loaded.rows
    cells = {name: size.servers.get(name) for name in ("ours", "upstream")}
    pss = " / ".join(_mib(result.pss if result else []) for result in cells.values())
    fresh_pss = " / ".join(_mib([result.fresh_pss] if result else []) for result in cells.values())
    bursts = "; ".join(
        f"{name} {len(result.burst.seconds)} claims in {result.burst_seconds:.1f} s "
        f"(p50 {_ms(result.burst.median)} ms{_errors(result.burst)})"
        for name, result in size.servers.items()
    )
    return [
        f"#### {size.nodes} nodes",
        "",
        f"* loaded in {size.loaded.seconds:.1f} s: {rows.get('resource_providers', 0)} providers, "
        f"{rows.get('consumers', 0)} consumers, {rows.get('allocations', 0)} allocations, "
        f"{rows.get('inventories', 0)} inventories; whole size took {size.wall / 60:.1f} min, "
        f"load average {size.load_average[0]:.1f}→{size.load_average[1]:.1f}",
        f"* {args.rounds} rounds × {args.repeats} requests per query and server "
        f"(a query stops repeating in a round after {args.budget:.0f} s; medians of all), "
        f"{args.claims} claims per round; PSS MiB (max of rounds) ours / "
        f"upstream: {pss}",
        "",
        *size_table(size, args.timeout),
        "",
        f"Fresh server after a burst of claims ({args.burst_threads} threads: {bursts}); "
        f"each query once; PSS MiB ours / upstream: {fresh_pss}:",
        "",
        *size_table(size, args.timeout, "fresh"),
        "",
    ]


def _git(directory: str, *args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", directory, *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def ours_description(args: argparse.Namespace) -> str:
    """Which code our server ran."""
    source = args.ours_src or ROOT
    commit = _git(source, "rev-parse", "--short", "HEAD")
    dirty = _git(source, "status", "--porcelain", "--", "placement")
    where = f"`--ours-src {args.ours_src}`" if args.ours_src else "this working tree"
    return f"{commit} ({where}{', with uncommitted changes in placement/' if dirty else ''})"


def upstream_version(venv: str) -> str:
    """The openstack-placement version in the upstream venv."""
    try:
        return subprocess.run(
            [os.path.join(venv, "bin", "python"), "-c",
             "import importlib.metadata as m; print(m.version('openstack-placement'))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(sizes: list[SizeResult], args: argparse.Namespace, database: str) -> str:
    """The whole Markdown report."""
    lines = [
        f"### Scale: {database}, {', '.join(str(s.nodes) for s in sizes)} nodes — "
        f"{datetime.date.today().isoformat()}",
        "",
        f"* machine: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}",
        f"* ours: {ours_description(args)}; upstream: openstack-placement "
        f"{upstream_version(args.upstream_venv)}",
        f"* gunicorn for both: `{' '.join(GUNICORN_ARGS)}`; microversion {MICROVERSION}; "
        f"one client; client timeout {args.timeout:.0f} s",
        f"* command: `{' '.join(sys.argv)}`",
        "",
    ]
    for size in sizes:
        lines += size_section(size, args)
    if len(sizes) > 1:
        lines += ["Growth exponents, log(t2/t1) / log(n2/n1) of the medians:", ""]
        lines += growth_table(sizes, args.timeout) + [""]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=sorted(DEFAULT_URLS), default="postgresql")
    parser.add_argument("--url", help="database server URL (default: the shared server of --db)")
    parser.add_argument(
        "--nodes", default="1000,10000", type=lambda v: [int(x) for x in v.split(",")]
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3, help="requests per query per round")
    parser.add_argument(
        "--budget", type=float, default=30.0, help="seconds per query and round before repeats stop"
    )
    parser.add_argument("--claims", type=int, default=50, help="timed claims per round")
    parser.add_argument("--burst", type=int, default=1000, help="claims before the fresh round")
    parser.add_argument("--burst-threads", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=120.0, help="client timeout (s)")
    parser.add_argument("--servers", default="ours,upstream")
    parser.add_argument("--upstream-venv", default=DEFAULT_UPSTREAM)
    parser.add_argument("--ours-venv", default=os.path.join(ROOT, ".venv"))
    parser.add_argument("--ours-src", help="a checkout of ours to put first on PYTHONPATH")
    parser.add_argument("--port", type=int, default=18870)
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    parser.add_argument("--results", help="append the report to this Markdown file")
    args = parser.parse_args(argv)
    args.url = args.url or DEFAULT_URLS[args.db]
    args.ours_src = os.path.abspath(args.ours_src) if args.ours_src else None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    venvs = {"ours": args.ours_venv, "upstream": args.upstream_venv}
    flavors = [Flavor(name, venvs[name]) for name in args.servers.split(",")]
    workdir = tempfile.mkdtemp(prefix="placement-scale-")
    sizes: list[SizeResult] = []
    try:
        database = server_version(args.url)
        for nodes in sorted(args.nodes):
            sizes.append(run_size(nodes, flavors, args, workdir))
            log(f"{nodes} nodes done in {sizes[-1].wall / 60:.1f} min")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(sizes, args, database)
    print(text)
    if args.results:
        with open(args.results, "a") as results:
            results.write("\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
