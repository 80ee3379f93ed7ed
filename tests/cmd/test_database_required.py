"""``placement-manage`` and ``placement-status`` act only on a configured
database, and say on stderr which one (password masked); stdout stays upstream's."""

from __future__ import annotations

from pathlib import Path

import pytest

from placement import cmd
from placement import conf as placement_conf
from placement.cmd import manage, status
from placement.db import migration
from tests import rig

REQUIRED = "value required for option connection in group [placement_database]"


@pytest.fixture
def no_config_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with no placement.conf and no OS_* option: nothing configures a database."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("OS_PLACEMENT_DATABASE__CONNECTION", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("command", "argv", "status_code", "prefix"),
    [
        (manage.main, ["db", "version"], 1, "placement-manage: error: configuration error: "),
        (manage.main, ["db", "sync"], 1, "placement-manage: error: configuration error: "),
        (status.main, ["upgrade", "check"], 255, "placement-status: configuration error: "),
    ],
    ids=["manage-version", "manage-sync", "status-check"],
)
def test_no_database_is_one_line_and_no_fallback(
    no_config_anywhere, capsys, command, argv, status_code, prefix
):
    assert command(argv) == status_code
    out, err = capsys.readouterr()
    assert err == prefix + REQUIRED + "\n"
    assert out == ""
    assert not (no_config_anywhere / "data").exists()  # no embedded SQLite was made


def _conf_file(tmp_path: Path, url: str) -> str:
    path = tmp_path / "placement.conf"
    path.write_text(f"[placement_database]\nconnection = {url}\n")
    return str(path)


def test_manage_names_its_database_on_stderr(backend, tmp_path, capsys):
    with rig.fresh_database(backend) as url:
        conf_file = _conf_file(tmp_path, url)
        assert manage.main(["--config-file", conf_file, "db", "sync"]) == 0
        assert manage.main(["--config-file", conf_file, "db", "version"]) == 0
        shown = cmd.masked_database_url(placement_conf.load(["--config-file", conf_file]))
    out, err = capsys.readouterr()
    assert out == migration.head_revision() + "\n"
    assert err == f"placement-manage: database {shown}\n" * 2


def test_status_names_its_database_on_stderr(backend, tmp_path, capsys):
    with rig.fresh_database(backend) as url:
        rig.migrated(url)
        conf_file = _conf_file(tmp_path, url)
        (tmp_path / "policy.yaml").write_text("")
        assert status.main(["--config-file", conf_file, "upgrade", "check"]) == 0
        shown = cmd.masked_database_url(placement_conf.load(["--config-file", conf_file]))
    out, err = capsys.readouterr()
    assert err == f"placement-status: database {shown}\n"
    assert "Upgrade Check Results" in out


def test_the_password_is_masked(tmp_path):
    conf_file = _conf_file(tmp_path, "mysql+pymysql://placement:s3cret@db.example/placement")
    shown = cmd.masked_database_url(placement_conf.load(["--config-file", conf_file]))
    assert shown == "mysql+pymysql://placement:***@db.example/placement"
