"""``placement-status upgrade check`` and ``placement-manage db online_data_migrations``
against legacy rows, on every backend of the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid

import pytest
import sqlalchemy as sa

from placement import db
from placement.cmd import manage, status
from placement.db import tables
from tests import rig
from tests.cmd import legacy

INCOMPLETE = "00000000-0000-0000-0000-000000000000"
RUN_MIGRATIONS = 'Run the "placement-manage db online_data_migrations" command.'


@pytest.fixture
def database(backend, tmp_path):
    """``(engine, conf_file)`` for a fresh, migrated database."""
    with rig.fresh_database(backend) as url:
        rig.migrated(url)
        conf_file = tmp_path / "placement.conf"
        conf_file.write_text(
            textwrap.dedent(f"""\
            [placement_database]
            connection = {url}
            [oslo_policy]
            policy_file = {tmp_path / "policy.yaml"}
            """)
        )
        engine = db.engine_from_url(url)
        try:
            yield engine, str(conf_file)
        finally:
            engine.dispose()


def run(command, conf_file, *args, capsys):
    code = command(["--config-file", conf_file, *args])
    return code, capsys.readouterr().out


def check(conf_file, capsys, *args):
    return run(status.main, conf_file, "upgrade", "check", *args, capsys=capsys)


def migrate(conf_file, capsys, *args):
    return run(manage.main, conf_file, "db", "online_data_migrations", *args, capsys=capsys)


def seed(engine, providers=3, consumers=None):
    with db.writer(engine) as conn:
        return legacy.insert_legacy_rows(conn, providers, consumers or {})


def results(output):
    """Each check's name and result word, from the table."""
    names = [
        line.split("Check: ")[1].strip(" |") for line in output.splitlines() if "Check: " in line
    ]
    words = [
        line.split("Result: ")[1].strip(" |") for line in output.splitlines() if "Result: " in line
    ]
    return dict(zip(names, words, strict=True))


def test_clean_database_passes_every_check(database, capsys):
    _engine, conf_file = database
    code, out = check(conf_file, capsys)
    assert code == 0
    assert results(out) == {
        "Missing Root Provider IDs": "Success",
        "Incomplete Consumers": "Success",
        "Policy File JSON to YAML Migration": "Success",
    }


def test_missing_root_ids_fail_and_incomplete_consumers_warn(database, capsys):
    engine, conf_file = database
    seed(engine, providers=3, consumers={str(uuid.uuid4()): 2, str(uuid.uuid4()): 1})
    code, out = check(conf_file, capsys, "--json")
    assert code == 2
    by_name = {c["check"]: c for c in json.loads(out)["checks"]}
    assert by_name["Missing Root Provider IDs"]["result"] == 2
    assert by_name["Missing Root Provider IDs"]["details"] == (
        "There is at least one resource provider table record which misses its root "
        f"provider id. {RUN_MIGRATIONS}"
    )
    assert by_name["Incomplete Consumers"] == {
        "check": "Incomplete Consumers",
        "result": 1,
        "details": "There are 2 incomplete consumers table records for existing "
        f"allocations. {RUN_MIGRATIONS}",
    }


def test_only_incomplete_consumers_is_a_warning(database, capsys):
    engine, conf_file = database
    ids = seed(engine, providers=1, consumers={str(uuid.uuid4()): 1})
    with db.writer(engine) as conn:
        conn.execute(tables.resource_providers.update().values(root_provider_id=ids[0]))
    code, out = check(conf_file, capsys)
    assert code == 1
    assert results(out)["Incomplete Consumers"] == "Warning"
    assert "There are 1 incomplete consumers" in out


def test_json_policy_file_fails_the_policy_check(database, capsys, tmp_path):
    _engine, conf_file = database
    (tmp_path / "policy.yaml").write_text('{"placement:traits:list": "role:admin"}')
    code, out = check(conf_file, capsys)
    assert code == 2
    assert results(out)["Policy File JSON to YAML Migration"] == "Failure"
    (tmp_path / "policy.yaml").write_text('"placement:traits:list": "role:admin"\n')
    assert check(conf_file, capsys)[0] == 0


def test_limited_batches_then_a_full_run(database, capsys):
    engine, conf_file = database
    consumers = sorted(str(uuid.uuid4()) for _ in range(2))
    provider_ids = seed(engine, providers=3, consumers={consumers[0]: 2, consumers[1]: 1})

    code, out = migrate(conf_file, capsys, "--max-count", "2")
    assert code == 1
    assert out.splitlines()[0] == "2 rows matched query set_root_provider_ids, 2 migrated"
    assert "create_incomplete_consumers" not in out  # the batch was used up

    code, out = migrate(conf_file, capsys, "--max-count", "2")
    assert code == 1
    assert out.splitlines()[:2] == [
        "1 rows matched query set_root_provider_ids, 1 migrated",
        "1 rows matched query create_incomplete_consumers, 1 migrated",
    ]

    code, out = migrate(conf_file, capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == [
        "Running batches of 50 until complete",
        "1 rows matched query create_incomplete_consumers, 1 migrated",
    ]
    assert table_rows(out) == [
        ["set_root_provider_ids", "0", "0"],
        ["create_incomplete_consumers", "1", "1"],
    ]

    with db.reader(engine) as conn:
        rps = tables.resource_providers
        roots = dict(conn.execute(sa.select(rps.c.id, rps.c.root_provider_id)).all())
        owners = conn.execute(
            sa.select(
                tables.consumers.c.uuid,
                tables.projects.c.external_id,
                tables.users.c.external_id,
                tables.consumers.c.generation,
            )
            .join(tables.projects, tables.projects.c.id == tables.consumers.c.project_id)
            .join(tables.users, tables.users.c.id == tables.consumers.c.user_id)
            .order_by(tables.consumers.c.uuid)
        ).all()
    assert roots == {rp_id: rp_id for rp_id in provider_ids}
    assert [tuple(row) for row in owners] == [(c, INCOMPLETE, INCOMPLETE, 0) for c in consumers]
    assert check(conf_file, capsys)[0] == 0


def test_unlimited_run_loops_until_nothing_is_left(database, capsys):
    engine, conf_file = database
    seed(engine, providers=60, consumers={str(uuid.uuid4()): 1 for _ in range(45)})
    code, out = migrate(conf_file, capsys)
    assert code == 0
    assert out.splitlines()[1:4] == [
        "50 rows matched query set_root_provider_ids, 50 migrated",
        "10 rows matched query set_root_provider_ids, 10 migrated",
        "40 rows matched query create_incomplete_consumers, 40 migrated",
    ]
    assert table_rows(out) == [
        ["set_root_provider_ids", "60", "60"],
        ["create_incomplete_consumers", "45", "45"],
    ]


def test_nothing_to_do(database, capsys):
    _engine, conf_file = database
    code, out = migrate(conf_file, capsys, "--max-count", "10")
    assert code == 0
    assert table_rows(out) == [
        ["set_root_provider_ids", "0", "0"],
        ["create_incomplete_consumers", "0", "0"],
    ]


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_bad_max_count(database, capsys, value):
    _engine, conf_file = database
    assert migrate(conf_file, capsys, "--max-count", value) == (
        127,
        "Must supply a positive value for max_count\n",
    )


def test_a_failing_migration_exits_2(database, capsys):
    engine, conf_file = database
    seed(engine, providers=2, consumers={str(uuid.uuid4()): 1})
    with db.writer(engine) as conn:
        conn.execute(sa.text("DROP TABLE users"))  # consumers cannot get an owner
    code, out = migrate(conf_file, capsys)
    assert code == 2
    assert "Error attempting to run create_incomplete_consumers" in out
    assert out.rstrip().endswith("Some migrations failed unexpectedly. Check log for details.")
    assert table_rows(out)[0] == ["set_root_provider_ids", "2", "2"]


def test_limited_run_that_progressed_is_not_a_failure(database, capsys):
    engine, conf_file = database
    seed(engine, providers=2, consumers={str(uuid.uuid4()): 1})
    with db.writer(engine) as conn:
        conn.execute(sa.text("DROP TABLE users"))
    code, out = migrate(conf_file, capsys, "--max-count", "5")
    assert code == 1
    assert "Some migrations failed" not in out


def table_rows(output):
    """The data rows of the prettytable at the end of ``output``."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in output.splitlines()
        if line.startswith("|")
    ]
    return rows[1:]


@pytest.mark.parametrize("script", ["placement-status", "placement-manage"])
def test_console_scripts_are_installed(script):
    path = os.path.join(os.path.dirname(sys.executable), script)
    result = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "usage" in result.stdout
