"""``placement-applier`` as a command: configuration, schema check, an idle ``--once``,
its service row from start-up."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import sqlalchemy

from placement.db import tables
from placement.objects.actionplans import services
from tests import rig, service_rows
from tests.applier.processes import Rig


def _applier(*args: str, home: Path) -> subprocess.CompletedProcess:
    """Run the command; an embedded database would go under ``home``, never the user's."""
    return subprocess.run(
        [sys.executable, "-m", "placement.cmd.applier", *args],
        env=dict(os.environ, XDG_DATA_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_unsynced_database_is_refused_with_what_to_do(tmp_path: Path):
    with rig.fresh_database("sqlite") as url:
        conf = tmp_path / "placement.conf"
        conf.write_text(f"[placement_database]\nconnection = {url}\n")
        result = _applier("--config-file", str(conf), "--once", home=tmp_path)
    assert result.returncode == 1
    assert "run 'placement-manage db sync'" in result.stderr


def test_a_bad_option_is_refused(tmp_path: Path):
    result = _applier("--lease-seconds", "0", home=tmp_path)
    assert result.returncode == 1
    assert "lease_seconds" in result.stderr or "lease-seconds" in result.stderr


def test_once_with_nothing_to_do_exits_at_once(applier_rig: Rig):
    log = applier_rig.once()
    assert "started" in log and "stopped" in log
    assert "Claimed" not in log


def test_the_standard_traits_are_synced_at_start(applier_rig: Rig):
    """Disabling a node needs COMPUTE_STATUS_DISABLED even before any API server ran."""
    with applier_rig.engine.begin() as conn:
        conn.execute(sqlalchemy.delete(tables.traits))
    applier_rig.once()
    with applier_rig.engine.connect() as conn:
        names = set(conn.execute(sqlalchemy.select(tables.traits.c.name)).scalars())
    assert "COMPUTE_STATUS_DISABLED" in names


def test_listed_by_services_once_it_says_it_started(applier_rig: Rig, tmp_path: Path):
    """Beats 600 s apart (``service_down_time`` 1800): the row read on the ``started``
    line can only be the start-up one."""
    slow_beats = tmp_path / "slow-beats.conf"
    slow_beats.write_text("[DEFAULT]\nservice_down_time = 1800\n")
    process = applier_rig.start("--config-file", str(slow_beats))
    listed = service_rows.listed_once_started(
        applier_rig.engine, process, lambda: applier_rig.log(process), r"Applier \S+ started"
    )
    assert listed == [(socket.gethostname(), services.APPLIER, services.ACTIVE)]
