"""The README's first command for real: placement-api under gunicorn."""

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


@pytest.fixture(scope="module")
def embedded_server(tmp_path_factory):
    """``placement-api`` with no configuration at all, on a free port."""
    home = tmp_path_factory.mktemp("home")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    log = open(home / "server.log", "w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "placement.cmd.api", "--port", str(port), "--workers", "2"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                _request(base + "/")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.2)
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
    assert body["versions"][0]["max_version"] == "1.39"


def test_readme_curl_example(embedded_server):
    """``curl -H 'x-auth-token: admin' -H 'openstack-api-version: placement latest' …``"""
    base, _, _ = embedded_server
    status, headers, body = _request(
        base + "/resource_providers",
        {"x-auth-token": "admin", "openstack-api-version": "placement latest"},
    )
    assert (status, body) == (200, {"resource_providers": []})
    assert headers["openstack-api-version"] == "placement 1.39"


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
    _, home, log = embedded_server
    database = home / "data" / "placement" / "placement.sqlite"
    assert database.exists()
    log.seek(0)
    text = log.read()
    assert "placement-api: NO DATABASE IS CONFIGURED: serving the EMBEDDED DEFAULT" in text
    assert f"database       SQLite file {database}" in text
    assert "auth_strategy  noauth2 (ANY token is accepted; 'admin' is an ADMINISTRATOR)" in text
