"""The README's first command for real: placement-api under gunicorn."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from placement import microversion as mv
from placement.cmd import api
from tests import server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url, headers=None):
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers or {}), timeout=10
        ) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.loads(exc.read())


def _wait_until_serving(base: str) -> None:
    for _ in range(150):
        try:
            _request(base + "/")
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)


@pytest.fixture(scope="module")
def embedded_server(tmp_path_factory):
    """``placement-api`` with no configuration at all, on a free port."""
    home = tmp_path_factory.mktemp("home")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    # Append mode: the tests seek this shared file description to read it, and
    # without O_APPEND the server's next line would land over the banner.
    log = open(home / "server.log", "a+")
    process = subprocess.Popen(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(port), "--workers", "2"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(base)
        yield base, home, log
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
        log.close()


def test_root_document(embedded_server):
    base, _, _ = embedded_server
    status, _, body = _request(base + "/")
    assert status == 200
    assert body["versions"][0]["min_version"] == "1.0"
    assert body["versions"][0]["max_version"] == str(mv.MAX_VERSION)


def test_readme_curl_example(embedded_server):
    """``curl -H 'x-auth-token: admin' -H 'openstack-api-version: placement latest' …``"""
    base, _, _ = embedded_server
    status, headers, body = _request(
        base + "/resource_providers",
        {"x-auth-token": "admin", "openstack-api-version": "placement latest"},
    )
    assert (status, body) == (200, {"resource_providers": []})
    assert headers["openstack-api-version"] == f"placement {mv.MAX_VERSION}"


def test_unacceptable_version(embedded_server):
    base, _, _ = embedded_server
    status, headers, body = _request(
        base + "/resource_providers",
        {"x-auth-token": "admin", "openstack-api-version": "placement 1.99"},
    )
    assert status == 406
    assert headers["content-type"] == "application/json"
    assert "Unacceptable version header: 1.99" in body["errors"][0]["detail"]


def test_embedded_database_and_loud_banner(embedded_server):
    base, home, log = embedded_server
    database = home / "data" / "placement" / "placement.sqlite"
    assert database.exists()
    log.seek(0)
    text = log.read()
    assert "placement-api: NO DATABASE IS CONFIGURED: serving the EMBEDDED DEFAULT" in text
    assert f"database       SQLite file {database}" in text
    assert "auth_strategy  noauth2 (ANY token is accepted; 'admin' is an ADMINISTRATOR)" in text
    assert f"console        {base}/console/ (open it in a browser)" in text
    assert f"Console: {base}/console/" in text
    assert f"infra-optim    {base}/infra-optim (Watcher's endpoint)" in text
    assert f"Watcher's endpoint (register it as infra-optim): {base}/infra-optim" in text


def test_the_infra_optim_url_it_prints_is_watchers_endpoint(embedded_server):
    base, _, _ = embedded_server
    status, _, body = _request(base + "/infra-optim")
    assert status == 200
    assert body["default_version"]["links"] == [{"href": f"{base}/infra-optim/v1/", "rel": "self"}]


def test_start_up_says_where_metrics_would_be(embedded_server):
    _, _, log = embedded_server
    log.seek(0)
    assert (
        "Metrics: disabled (set [metrics] enabled = true to serve them at "
        "http://127.0.0.1:9464/metrics)"
    ) in log.read()


def test_metrics_summed_over_workers(tmp_path):
    """placement-api installs the gunicorn hooks itself: one exposition, two workers."""
    port, metrics_port = _free_port(), _free_port()
    conf = tmp_path / "placement.conf"
    conf.write_text(
        f"[placement_database]\nconnection = sqlite:///{tmp_path / 'p.db'}\n"
        "sync_on_startup = true\n[api]\nauth_strategy = noauth2\n"
        f"[metrics]\nenabled = true\nbind = 127.0.0.1:{metrics_port}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OS_", "PROMETHEUS_"))}
    with open(tmp_path / "server.log", "a+") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "placement.cmd.api", "--port", str(port), "--workers", "2"]
            + ["--no-applier", "--config-file", str(conf)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_until_serving(base)
            for _ in range(10):
                assert _request(base + "/")[0] == 200
            samples = server.scrape(f"http://127.0.0.1:{metrics_port}/metrics")
            labels = {"route": "/", "method": "GET", "status": "200"}
            assert server.sample(samples, "placement_http_requests_total", **labels) >= 10
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        log.seek(0)
        assert f"Metrics: http://127.0.0.1:{metrics_port}/metrics" in log.read()


def test_metrics_never_share_the_api_port(tmp_path, capsys):
    conf = tmp_path / "placement.conf"
    conf.write_text("[metrics]\nenabled = true\nbind = 127.0.0.1:9464\n")
    assert api.main(["--port", "9464", "--config-file", str(conf)]) == 2
    assert "[metrics] bind 127.0.0.1:9464 uses the API's port" in capsys.readouterr().err


@contextlib.contextmanager
def _serving(tmp_path, env, *args):
    """``placement-api`` on a free port, answering, until the block ends; yields its log."""
    port = _free_port()
    with open(tmp_path / "server.log", "a+") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "placement.cmd.api", "--port", str(port), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            _wait_until_serving(f"http://127.0.0.1:{port}")
            yield log
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)


def test_the_config_dir_of_the_wsgi_application_is_read(tmp_path):
    """``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` configures the server and its applier."""
    confdir, home = tmp_path / "etc", tmp_path / "home"
    confdir.mkdir()
    home.mkdir()
    database, log_file = tmp_path / "configured.db", tmp_path / "placement.log"
    (confdir / "placement.conf").write_text(
        f"[DEFAULT]\nlog_file = {log_file}\n"
        f"[placement_database]\nconnection = sqlite:///{database}\nsync_on_startup = true\n"
        "[api]\nauth_strategy = noauth2\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(
        HOME=str(home), XDG_DATA_HOME=str(home / "data"), OS_PLACEMENT_CONFIG_DIR=str(confdir)
    )
    with _serving(tmp_path, env, "--applier") as log:
        # The applier child read the same file: it logs there too.
        for _ in range(150):
            if "placement.applier" in log_file.read_text():
                break
            time.sleep(0.1)
        assert "placement.applier" in log_file.read_text()
        log.seek(0)
        assert "EMBEDDED DEFAULT" not in log.read()
    assert database.exists()
    assert not (home / "data" / "placement").exists()


def test_a_config_dir_without_placement_conf_is_refused_as_by_the_wsgi_application(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(HOME=str(tmp_path), OS_PLACEMENT_CONFIG_DIR=str(tmp_path / "etc"))
    done = subprocess.run(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(_free_port()), "--no-applier"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    expected = f"Configuration file not found: {tmp_path / 'etc' / 'placement.conf'}"
    assert expected in done.stderr
