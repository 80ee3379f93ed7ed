"""The WSGI application fails closed, as upstream's: it starts only on a
configured, migrated database, and authenticates with keystone by default."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import falcon.testing
import pytest

from placement import conf as placement_conf
from placement import logs
from placement.wsgi import PlacementApp, create_app, init_application
from tests import identity as stand_in
from tests import rig
from tests.server import free_port

GUNICORN = os.path.join(os.path.dirname(sys.executable), "gunicorn")
REQUIRED = "value required for option connection in group [placement_database]"


def _clean_env(home: Path) -> dict[str, str]:
    """No OS_* option from the caller, and a home with no placement.conf."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    return env


def _list_as_admin(app: PlacementApp) -> int:
    """The status of ``GET /resource_providers`` with the token ``admin``; disposes the app."""
    try:
        return falcon.testing.simulate_get(
            app, "/resource_providers", headers={"X-Auth-Token": "admin"}
        ).status_code
    finally:
        app.placement_engine.dispose()


def test_gunicorn_without_a_database_refuses_to_start(tmp_path: Path):
    """The README's production line with no config file found serves nothing."""
    result = subprocess.run(
        [
            GUNICORN,
            "--bind",
            f"127.0.0.1:{free_port()}",
            "--no-control-socket",
            "placement.wsgi.api:application",
        ],
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert REQUIRED in result.stderr
    assert not (tmp_path / "data").exists()  # no embedded SQLite was made


@pytest.fixture(scope="module")
def identity():
    with stand_in.serving() as running:
        yield running


def test_wsgi_application_defaults_to_keystone(backend, identity, tmp_path, monkeypatch):
    """With only a database configured, the token ``admin`` is just an unknown token."""
    with rig.fresh_database(backend) as url:
        rig.migrated(url)
        (tmp_path / "placement.conf").write_text(
            textwrap.dedent(f"""\
            [placement_database]
            connection = {url}
            [keystone_authtoken]
            www_authenticate_uri = https://keystone.example.com/identity
            auth_type = password
            auth_url = {identity.url}/v3
            username = {stand_in.SERVICE_USER}
            password = {stand_in.SERVICE_PASSWORD}
            project_name = service
            user_domain_name = Default
            project_domain_name = Default
            """)
        )
        monkeypatch.setenv("OS_PLACEMENT_CONFIG_DIR", str(tmp_path))
        # oslo.log would take over this test process's logging (tests/test_logs.py covers it).
        monkeypatch.setattr(logs, "setup", lambda conf: None)
        assert _list_as_admin(init_application()) == 401


def test_an_unmigrated_database_is_refused_with_what_to_do(backend):
    with rig.fresh_database(backend) as url:
        with pytest.raises(placement_conf.ConfigError) as refused:
            create_app(rig.make_conf(url))
    assert "has no Placement schema: run 'placement-manage db sync'" in str(refused.value)
    assert "sync_on_startup" in str(refused.value)


def test_sync_on_startup_migrates_an_empty_database(backend):
    with rig.fresh_database(backend) as url:
        conf = rig.make_conf(url, placement_database={"sync_on_startup": True})
        assert _list_as_admin(create_app(conf)) == 200
