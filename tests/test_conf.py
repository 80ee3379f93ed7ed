"""Configuration loading: files, environment, validation, the required database
and placement-api's embedded default."""

import os
import subprocess
import sys

import pytest

from placement import conf


def _write(tmp_path, text):
    path = tmp_path / "placement.conf"
    path.write_text(text)
    return str(path)


def test_defaults_are_upstreams():
    loaded = conf.load([], default_config_files=[])
    assert loaded.api.auth_strategy == "keystone"
    assert loaded.placement.allocation_conflict_retry_count == 10
    assert loaded.placement.max_allocation_candidates == -1
    assert loaded.placement.allocation_candidates_generation_strategy == "depth-first"
    assert loaded.placement.incomplete_consumer_project_id == "00000000-0000-0000-0000-000000000000"
    assert loaded.placement_database.connection_recycle_time == 3600


def test_config_file_is_read(tmp_path):
    path = _write(tmp_path, "[placement]\nmax_allocation_candidates = 5\n")
    assert conf.load(["--config-file", path]).placement.max_allocation_candidates == 5


def test_environment_overrides_file(tmp_path, monkeypatch):
    path = _write(tmp_path, "[placement]\nmax_allocation_candidates = 5\n")
    monkeypatch.setenv("OS_PLACEMENT__MAX_ALLOCATION_CANDIDATES", "7")
    assert conf.load(["--config-file", path]).placement.max_allocation_candidates == 7


@pytest.mark.parametrize(
    "text, named",
    [
        ("[api]\nauth_strategy = magic\n", "[api] auth_strategy"),
        (
            "[placement]\nmax_allocation_candidates = many\n",
            "[placement] max_allocation_candidates",
        ),
        (
            "[placement]\nrandomize_allocation_candidates = perhaps\n",
            "[placement] randomize_allocation_candidates",
        ),
    ],
)
def test_bad_value_names_the_option(tmp_path, text, named):
    with pytest.raises(conf.ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        conf.load(["--config-file", _write(tmp_path, text)])


def test_malformed_file_is_a_config_error(tmp_path):
    with pytest.raises(conf.ConfigError):
        conf.load(["--config-file", _write(tmp_path, "this is not ini\n[")])


def test_wsgi_reads_the_config_dir(tmp_path, monkeypatch):
    _write(tmp_path, "[api]\nauth_strategy = noauth2\n")
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(tmp_path))
    assert conf.wsgi_config_files() == [str(tmp_path / "placement.conf")]


def test_wsgi_config_dir_must_hold_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(tmp_path))
    with pytest.raises(conf.ConfigError, match="placement.conf"):
        conf.wsgi_config_files()


def test_a_database_is_required(tmp_path):
    """As upstream's RequiredOptError: nothing falls back to a local database."""
    loaded = conf.load([], default_config_files=[])
    with pytest.raises(conf.ConfigError, match=r"connection in group \[placement_database\]"):
        conf.database_url(loaded)


def test_embedded_default_is_sqlite_noauth2_and_migrated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    loaded = conf.load([], default_config_files=[])
    assert conf.use_embedded_default(loaded) == f"{tmp_path}/placement/placement.sqlite"
    assert conf.database_url(loaded) == f"sqlite:///{tmp_path}/placement/placement.sqlite"
    assert loaded.api.auth_strategy == "noauth2"
    assert loaded.placement_database.sync_on_startup


def test_configured_database_keeps_keystone_default(tmp_path):
    path = _write(tmp_path, "[placement_database]\nconnection = sqlite://\n")
    loaded = conf.load(["--config-file", path])
    assert conf.use_embedded_default(loaded) is None
    assert conf.database_url(loaded) == "sqlite://"
    assert loaded.api.auth_strategy == "keystone"
    assert not loaded.placement_database.sync_on_startup


def test_embedded_default_honours_an_explicit_strategy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    path = _write(tmp_path, "[api]\nauth_strategy = keystone\n")
    loaded = conf.load(["--config-file", path])
    assert conf.use_embedded_default(loaded) is not None
    assert loaded.api.auth_strategy == "keystone"


def test_placement_api_reports_bad_config_without_traceback(tmp_path):
    path = _write(tmp_path, "[api]\nauth_strategy = magic\n")
    result = subprocess.run(
        [sys.executable, "-m", "placement.cmd.api", "--config-file", path],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
    )
    assert result.returncode == 2
    assert "[api] auth_strategy" in result.stderr
    assert "Traceback" not in result.stderr


def test_placement_api_refuses_public_bind_with_noauth2(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "placement.cmd.api", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
    )
    assert result.returncode == 2
    assert "--allow-insecure-bind" in result.stderr
