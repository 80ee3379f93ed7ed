"""Our operator commands against upstream's, on a MariaDB database upstream built.

Runs :mod:`tests.cmd.compare_upstream` when upstream's venv and a MySQL/MariaDB
server (``PLACEMENT_TEST_MYSQL_URL``) are available; skipped otherwise.
"""

from __future__ import annotations

import os
import socket
import sys

import pytest

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
