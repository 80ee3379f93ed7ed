"""Logging as operators configure it: oslo.log's options in ``placement.conf``,
read by the WSGI application's module as upstream's are.

Each test runs the real entry point (``placement.wsgi.api``) in a child
process, since oslo.log reconfigures the whole process's logging.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import rig

#: Import the WSGI application (configuration from $OS_PLACEMENT_CONFIG_DIR,
#: logging set up from it), send it the requests given as JSON header sets,
#: print the root logger's handler types.
_CHILD = textwrap.dedent("""\
    import json, logging, sys
    import falcon.testing
    from placement.wsgi.api import application
    for headers in json.loads(sys.argv[1]):
        falcon.testing.simulate_get(
            application, "/resource_providers", headers=headers, remote_addr="127.0.0.1"
        )
    application.placement_engine.dispose()
    print(json.dumps([type(h).__name__ for h in logging.getLogger().handlers]))
    """)

ADMIN = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"}
GLOBAL_ID = "req-11111111-2222-3333-4444-555555555555"
REQ = r"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
#: Upstream's line, oslo.log's default format: time, pid, level, logger,
#: [global id, request id, user, project, domains], then the access fields.
UPSTREAM_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \d+ INFO placement\.requestlog "
    rf"\[(?P<global>None|{REQ}) (?P<rid>{REQ}) (?P<who>[^\]]*)\] "
    r'127\.0\.0\.1 "GET /resource_providers" status: (?P<status>\d+) len: \d+ '
    r"microversion: (?P<mv>\S+)$"
)


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with rig.migrated_database("sqlite") as url:
        yield url


def serve(tmp_path: Path, url: str, logging_options: str, *requests: dict) -> tuple[str, list]:
    """Run the child with ``logging_options`` under ``[DEFAULT]``; its stdout
    and stderr together, and its root handlers' types."""
    (tmp_path / "placement.conf").write_text(
        f"[DEFAULT]\n{logging_options}\n"
        "[api]\nauth_strategy = noauth2\n"
        f"[placement_database]\nconnection = {url}\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["OS_PLACEMENT_CONFIG_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(list(requests))],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    *output, handlers = done.stdout.splitlines()
    return "\n".join(output) + done.stderr, json.loads(handlers)


def access_lines(text: str) -> list[re.Match]:
    return [m for line in text.splitlines() if (m := UPSTREAM_LINE.match(line))]


def test_log_file_gets_upstreams_access_line_with_user_and_project(tmp_path, database):
    log_file = tmp_path / "placement.log"
    output, _ = serve(
        tmp_path,
        database,
        f"log_file = {log_file}",
        ADMIN,
        {**ADMIN, "X-OpenStack-Request-ID": GLOBAL_ID},
        {"OpenStack-API-Version": "placement 1.39"},
    )
    assert "placement.requestlog" not in output  # all of it went to the file
    first, second, unauthenticated = access_lines(log_file.read_text())
    assert first["global"] == "None"
    assert (first["status"], first["mv"], first["who"]) == ("200", "1.39", "admin admin - - - -")
    assert second["global"] == GLOBAL_ID
    # No user yet (401): the request still names itself, and no one.
    assert (unauthenticated["status"], unauthenticated["mv"]) == ("401", "-")
    assert unauthenticated["who"] == "- - - - - -"
    for line in (first, second, unauthenticated):
        assert line.group(0).count(line["rid"]) == 1  # the request id once


def test_log_dir_holds_a_relative_log_file(tmp_path, database):
    logs = tmp_path / "logs"
    logs.mkdir()
    serve(tmp_path, database, f"log_dir = {logs}\nlog_file = api.log", ADMIN)
    assert len(access_lines((logs / "api.log").read_text())) == 1


def test_debug_adds_debug_lines(tmp_path, database):
    quiet, _ = serve(tmp_path, database, "", ADMIN)
    assert len(access_lines(quiet)) == 1  # no log_file: upstream's stdout
    assert " DEBUG " not in quiet
    loud, _ = serve(tmp_path, database, "debug = True", ADMIN)
    assert re.search(
        r' DEBUG placement\.requestlog \[.*\] Starting request: 127\.0\.0\.1 "GET', loud
    )


def test_log_config_append_replaces_the_whole_setup(tmp_path, database):
    log_file = tmp_path / "custom.log"
    ini = tmp_path / "logging.ini"
    sections = {
        "loggers": "keys = root",
        "handlers": "keys = file",
        "formatters": "keys = plain",
        "logger_root": "level = INFO\nhandlers = file",
        "handler_file": f"class = FileHandler\nargs = ({str(log_file)!r},)\nformatter = plain",
        "formatter_plain": "format = %(levelname)s|%(name)s|%(message)s",
    }
    ini.write_text("".join(f"[{name}]\n{body}\n" for name, body in sections.items()))
    output, _ = serve(tmp_path, database, f"log_config_append = {ini}", ADMIN)
    assert "placement.requestlog" not in output
    assert re.search(
        r'^INFO\|placement\.requestlog\|127\.0\.0\.1 "GET /resource_providers" status: 200',
        log_file.read_text(),
        re.MULTILINE,
    )


def test_use_syslog_logs_to_syslog(tmp_path, database):
    _, handlers = serve(tmp_path, database, "use_syslog = True", ADMIN)
    assert "OSSysLogHandler" in handlers
