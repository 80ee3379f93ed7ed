"""Do our operator commands report what upstream's report, on upstream's own database?

Usage::

    .venv/bin/python -m tests.cmd.compare_upstream [--server URL] [--upstream-venv DIR]
                                                   [--port N] [--ours-bin DIR] [--verbose]

1. Create a MariaDB/MySQL database, let upstream's ``placement-manage db sync``
   build its schema, start upstream's API (gunicorn, noauth2) on ``--port`` and
   write providers, inventories and allocations through it.
2. Turn some rows into legacy ones (NULL ``root_provider_id``; allocations
   whose consumer row is gone), which no current API writes.
3. Copy that database twice; run the same sequence of ``placement-status
   upgrade check`` and ``placement-manage db online_data_migrations`` calls
   with upstream's commands on one copy and ours on the other.
4. Compare exit statuses, standard output and the repaired rows.

Prints one line per step and exits 0 when everything matched, 1 otherwise.
Without upstream's venv (``--upstream-venv``, default
``~/.cache/placement-conformance/venv``) it prints why and exits 0 (skipped).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import sqlalchemy as sa

from placement.db import tables
from tests import dbutil
from tests.cmd import legacy

DEFAULT_UPSTREAM_VENV = os.path.expanduser("~/.cache/placement-conformance/venv")
DEFAULT_SERVER = "mysql+pymysql://root@127.0.0.1:3306/"
DEFAULT_PORT = 19140

# (description, command, arguments, extra config file?)
STEPS = [
    ("status before", "placement-status", ["upgrade", "check"], False),
    (
        "first limited batch",
        "placement-manage",
        ["db", "online_data_migrations", "--max-count", "2"],
        False,
    ),
    (
        "second limited batch",
        "placement-manage",
        ["db", "online_data_migrations", "--max-count", "2"],
        False,
    ),
    ("status midway", "placement-status", ["upgrade", "check"], False),
    ("run to completion", "placement-manage", ["db", "online_data_migrations"], False),
    (
        "nothing left",
        "placement-manage",
        ["db", "online_data_migrations", "--max-count", "5"],
        False,
    ),
    (
        "bad max count",
        "placement-manage",
        ["db", "online_data_migrations", "--max-count", "0"],
        False,
    ),
    ("status after", "placement-status", ["upgrade", "check"], False),
    ("JSON policy file", "placement-status", ["upgrade", "check"], True),
]


@dataclass
class Outcome:
    code: int
    output: str


def _request(port: int, method: str, path: str, body: dict | None, version: str) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=data,
        method=method,
        headers={
            "X-Auth-Token": "admin",
            "OpenStack-API-Version": f"placement {version}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
    return json.loads(raw) if raw else {}


@contextlib.contextmanager
def upstream_api(venv: str, confdir: str, port: int) -> Iterator[None]:
    """Upstream's gunicorn on ``port`` until the block ends."""
    env = {**os.environ, "OS_PLACEMENT_CONFIG_DIR": confdir, "NO_PROXY": "127.0.0.1"}
    log_path = os.path.join(confdir, "server.log")
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [
                os.path.join(venv, "bin", "gunicorn"),
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--no-control-socket",
                "placement.wsgi.api:application",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=confdir,
        )  # gunicorn puts its cwd first on sys.path: not our checkout
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _request(port, "GET", "/", None, "1.0")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or server.poll() is not None:
                    with open(log_path) as log:
                        raise RuntimeError(
                            "upstream API did not start:\n" + log.read()[-3000:]
                        ) from None
                time.sleep(0.3)
        yield
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=20)


def write_through_api(port: int) -> None:
    """Providers (one with a child), VCPU inventories, allocations of five consumers."""
    roots = []
    for index in range(4):
        made = _request(
            port,
            "POST",
            "/resource_providers",
            {"name": f"cn{index}", "uuid": str(uuid.uuid4())},
            "1.20",
        )
        roots.append(made["uuid"])
        _request(
            port,
            "PUT",
            f"/resource_providers/{made['uuid']}/inventories",
            {
                "resource_provider_generation": made["generation"],
                "inventories": {"VCPU": {"total": 16}},
            },
            "1.20",
        )
    _request(
        port,
        "POST",
        "/resource_providers",
        {"name": "cn0-numa0", "parent_provider_uuid": roots[0]},
        "1.20",
    )
    for index in range(5):
        _request(
            port,
            "PUT",
            f"/allocations/{uuid.uuid4()}",
            {
                "allocations": {roots[index % 4]: {"resources": {"VCPU": 1 + index}}},
                "project_id": f"project-{index % 2}",
                "user_id": f"user-{index}",
                "consumer_generation": None,
            },
            "1.28",
        )


def copy_database(url: str, copy_name: str) -> str:
    """A new database ``copy_name`` on the same server with the same tables and rows."""
    source = sa.engine.make_url(url)
    engine = sa.create_engine(source.set(database=None), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE `{copy_name}` CHARACTER SET utf8mb4")
            names = (
                conn.execute(
                    sa.text(
                        "SELECT table_name FROM information_schema.tables WHERE table_schema = :s"
                    ),
                    {"s": source.database},
                )
                .scalars()
                .all()
            )
            conn.exec_driver_sql(f"USE `{copy_name}`")
            conn.exec_driver_sql("SET FOREIGN_KEY_CHECKS = 0")
            for name in names:
                ddl = conn.exec_driver_sql(f"SHOW CREATE TABLE `{source.database}`.`{name}`").one()[
                    1
                ]
                conn.exec_driver_sql(ddl)
                conn.exec_driver_sql(
                    f"INSERT INTO `{copy_name}`.`{name}` SELECT * FROM `{source.database}`.`{name}`"
                )
    finally:
        engine.dispose()
    return source.set(database=copy_name).render_as_string(hide_password=False)


def write_config(directory: str, url: str) -> tuple[str, str]:
    """``placement.conf`` for ``url`` and an extra file naming a JSON policy file."""
    os.makedirs(directory, exist_ok=True)
    conf_file = os.path.join(directory, "placement.conf")
    with open(conf_file, "w") as stream:
        stream.write(f"[api]\nauth_strategy = noauth2\n[placement_database]\nconnection = {url}\n")
    policy_json = os.path.join(directory, "policy.json")
    with open(policy_json, "w") as stream:
        json.dump({"placement:traits:list": "role:admin"}, stream)
    policy_conf = os.path.join(directory, "json-policy.conf")
    with open(policy_conf, "w") as stream:
        stream.write(f"[oslo_policy]\npolicy_file = {policy_json}\n")
    return conf_file, policy_conf


def run_steps(bin_dir: str, conf_file: str, policy_conf: str) -> list[Outcome]:
    outcomes = []
    for _name, command, args, with_json_policy in STEPS:
        files = ["--config-file", conf_file]
        if with_json_policy:
            files += ["--config-file", policy_conf]
        done = subprocess.run(
            [os.path.join(bin_dir, command), *files, *args],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=os.path.dirname(conf_file),
        )
        outcomes.append(Outcome(done.returncode, done.stdout))
    return outcomes


def repaired_rows(url: str) -> dict[str, list[tuple]]:
    """What the migrations changed, keyed by uuid rather than internal ids."""
    rps, consumers = tables.resource_providers, tables.consumers
    roots = rps.alias("roots")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            providers = conn.execute(
                sa.select(rps.c.uuid, roots.c.uuid)
                .outerjoin(roots, roots.c.id == rps.c.root_provider_id)
                .order_by(rps.c.uuid)
            ).all()
            owners = conn.execute(
                sa.select(
                    consumers.c.uuid,
                    tables.projects.c.external_id,
                    tables.users.c.external_id,
                    consumers.c.generation,
                    consumers.c.consumer_type_id,
                )
                .join(tables.projects, tables.projects.c.id == consumers.c.project_id)
                .join(tables.users, tables.users.c.id == consumers.c.user_id)
                .order_by(consumers.c.uuid)
            ).all()
    finally:
        engine.dispose()
    return {"providers": [tuple(r) for r in providers], "consumers": [tuple(r) for r in owners]}


def compare(
    server: str, upstream_venv: str, ours_bin: str, port: int, verbose: bool = False
) -> list[str]:
    """Run the whole comparison; returns the differences found (empty: identical)."""
    made: list[str] = []
    with tempfile.TemporaryDirectory(prefix="placement-compare-") as work:
        try:
            original = dbutil.fresh_database_url(server, prefix="edge_compare_")
            made.append(original)
            conf_file, _ = write_config(os.path.join(work, "original"), original)
            subprocess.run(
                [
                    os.path.join(upstream_venv, "bin", "placement-manage"),
                    "--config-file",
                    conf_file,
                    "db",
                    "sync",
                ],
                check=True,
                capture_output=True,
                timeout=300,
            )
            with upstream_api(upstream_venv, os.path.dirname(conf_file), port):
                write_through_api(port)
            engine = sa.create_engine(original)
            try:
                with engine.begin() as conn:
                    legacy.make_legacy(conn, providers=3, consumers=3)
            finally:
                engine.dispose()

            name = sa.engine.make_url(original).database
            results, rows = {}, {}
            for side, bin_dir in (
                ("upstream", os.path.join(upstream_venv, "bin")),
                ("ours", ours_bin),
            ):
                url = copy_database(original, f"{name}_{side}")
                made.append(url)
                conf_file, policy_conf = write_config(os.path.join(work, side), url)
                results[side] = run_steps(bin_dir, conf_file, policy_conf)
                rows[side] = repaired_rows(url)
        finally:
            for url in made:
                dbutil.drop_database(url)
    return report(results, rows, verbose)


def report(
    results: dict[str, list[Outcome]], rows: dict[str, dict], verbose: bool = False
) -> list[str]:
    differences = []
    for (name, command, args, _), theirs, ours in zip(
        STEPS, results["upstream"], results["ours"], strict=True
    ):
        same = (theirs.code, theirs.output) == (ours.code, ours.output)
        print(
            f"{'same' if same else 'DIFFERENT':9} exit {theirs.code}/{ours.code}  "
            f"{name}: {command} {' '.join(args)}"
        )
        if verbose:
            print(ours.output)
        if not same:
            differences.append(
                f"{name}: upstream exit {theirs.code}\n{theirs.output}\n"
                f"ours exit {ours.code}\n{ours.output}"
            )
    same_rows = rows["upstream"] == rows["ours"]
    print(
        f"{'same' if same_rows else 'DIFFERENT':9} repaired rows "
        f"({len(rows['ours']['providers'])} providers, "
        f"{len(rows['ours']['consumers'])} consumers)"
    )
    if not same_rows:
        differences.append(f"rows: upstream {rows['upstream']}\nours {rows['ours']}")
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--server",
        default=os.environ.get("PLACEMENT_TEST_MYSQL_URL") or DEFAULT_SERVER,
        help="MariaDB/MySQL server URL",
    )
    parser.add_argument("--upstream-venv", default=DEFAULT_UPSTREAM_VENV)
    parser.add_argument(
        "--ours-bin",
        default=os.path.dirname(sys.executable),
        help="directory holding our placement-manage and placement-status",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="port for upstream's API while data is written",
    )
    parser.add_argument("--verbose", action="store_true", help="print each step's output")
    args = parser.parse_args(argv)
    if not os.path.exists(os.path.join(args.upstream_venv, "bin", "placement-manage")):
        print(f"skipped: no upstream Placement venv at {args.upstream_venv}")
        return 0
    differences = compare(args.server, args.upstream_venv, args.ours_bin, args.port, args.verbose)
    for difference in differences:
        print("\n" + difference)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
