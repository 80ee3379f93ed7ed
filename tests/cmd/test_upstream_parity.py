"""Our operator commands against upstream's, on a MariaDB database upstream built;
and upstream on a database that also holds our action-plan tables.

Runs :mod:`tests.cmd.compare_upstream` when upstream's venv and a MySQL/MariaDB
server (``PLACEMENT_TEST_MYSQL_URL``) are available; skipped otherwise.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from placement.db import migration
from tests import dbutil
from tests.cmd import compare_upstream

UPSTREAM_VENV = os.environ.get("PLACEMENT_UPSTREAM_VENV", compare_upstream.DEFAULT_UPSTREAM_VENV)
SERVER = os.environ.get("PLACEMENT_TEST_MYSQL_URL")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif(not SERVER, reason="PLACEMENT_TEST_MYSQL_URL not set")
@pytest.mark.skipif(
    not os.path.exists(os.path.join(UPSTREAM_VENV, "bin", "placement-manage")),
    reason=f"no upstream Placement venv at {UPSTREAM_VENV}",
)
def test_commands_report_what_upstream_reports():
    differences = compare_upstream.compare(
        SERVER, UPSTREAM_VENV, os.path.dirname(sys.executable), free_port()
    )
    assert differences == []


@pytest.mark.skipif(
    not (SERVER and os.path.exists(os.path.join(UPSTREAM_VENV, "bin", "placement-manage"))),
    reason="needs PLACEMENT_TEST_MYSQL_URL and upstream's venv",
)
@pytest.mark.parametrize("ours_first", [True, False], ids=["ours-first", "upstream-first"])
def test_upstream_keeps_its_revision_and_api_beside_action_plan_tables(tmp_path, ours_first):
    """``db sync`` by both tools in either order: both read Placement's head, upstream serves."""
    url = dbutil.fresh_database_url(SERVER, prefix="edge_actionplans_")
    try:
        conf_file, _ = compare_upstream.write_config(str(tmp_path), url)
        ours_bin = os.path.dirname(sys.executable)
        tools = [
            [os.path.join(bin_dir, "placement-manage"), "--config-file", conf_file]
            for bin_dir in (ours_bin, os.path.join(UPSTREAM_VENV, "bin"))
        ]
        for tool in tools if ours_first else tools[::-1]:
            subprocess.run([*tool, "db", "sync"], check=True, capture_output=True, timeout=300)
        for tool in tools:
            version = subprocess.run(
                [*tool, "db", "version"], check=True, capture_output=True, text=True, timeout=60
            )
            assert version.stdout.strip() == migration.head_revision()
        port = free_port()
        with compare_upstream.upstream_api(UPSTREAM_VENV, str(tmp_path), port):
            body = {"name": "rp"}
            made = compare_upstream._request(port, "POST", "/resource_providers", body, "1.20")
            listed = compare_upstream._request(port, "GET", "/resource_providers", None, "1.20")
        assert [rp["uuid"] for rp in listed["resource_providers"]] == [made["uuid"]]
    finally:
        dbutil.drop_database(url)
