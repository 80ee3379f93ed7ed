"""Run tempest with watcher-tempest-plugin, and read back what each test did.

Shared by the plugin's API suite (:mod:`tests.watcher_tempest.suite`, on a
deployment of its own) and its scenario suite
(:mod:`tests.watcher_tempest.scenarios`, on the Nova cloud): both write a
``tempest.conf`` into a directory of their own, run the tests a regular
expression selects one at a time, and get each test's :class:`Outcome`.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

from tests.nova import cloud
from tests.watcher_tempest import pluginenv


@dataclass(frozen=True)
class Outcome:
    """What subunit says of one test: ``success``, ``fail`` or ``skip``."""

    status: str
    details: str


def identity_sections(keystone_url: str) -> str:
    """``tempest.conf``'s Keystone part: admin credentials, and dynamic credentials
    (the plugin's classes ask for projects of their own; tempest makes them)."""
    return textwrap.dedent(f"""\
        [DEFAULT]
        log_file = tempest.log
        [auth]
        use_dynamic_credentials = true
        admin_username = admin
        admin_password = {cloud.ADMIN_PASSWORD}
        admin_project_name = admin
        admin_domain_name = Default
        [identity]
        uri_v3 = {keystone_url}/v3
        auth_version = v3
        region = {cloud.REGION}
        [identity-feature-enabled]
        api_v2 = false
        """)


def run(tempest_dir: Path, conf: str, regex: str, log: Path, timeout: float) -> dict[str, Outcome]:
    """Run the tests ``regex`` selects, one at a time, with ``conf`` as
    ``tempest_dir/tempest.conf``; each test's outcome (tempest's output in ``log``).

    One at a time: the plugin's tests share the cloud's hosts and its action plans
    (each scenario first waits until every plan has finished).
    """
    venv = pluginenv.plugin_venv()
    tempest_dir.mkdir(parents=True)  # tempest writes .stestr.conf and its results here
    (tempest_dir / "tempest.conf").write_text(conf)
    with open(log, "wb") as output:
        subprocess.run(
            [
                *(str(venv / "bin" / "tempest"), "run", "--config-file", "tempest.conf"),
                *("--regex", regex, "--concurrency", "1"),
            ],
            cwd=tempest_dir,
            stdout=output,
            stderr=subprocess.STDOUT,
            timeout=timeout,
            env=cloud.clean_env(),
        )
    outcomes = _outcomes(tempest_dir, venv)
    if not outcomes:
        raise RuntimeError(f"tempest ran no test:\n{log.read_text(errors='replace')[-4000:]}")
    return outcomes


def _outcomes(tempest_dir: Path, venv: Path) -> dict[str, Outcome]:
    """Each test's outcome in the last run of ``tempest_dir``, from its subunit stream."""
    stream = subprocess.run(
        [str(venv / "bin" / "stestr"), "last", "--subunit"],
        cwd=tempest_dir,
        capture_output=True,
        check=True,
        env=cloud.clean_env(),
    ).stdout
    parsed = subprocess.run(
        [str(venv / "bin" / "python"), str(Path(__file__).with_name("outcomes.py"))],
        input=stream,
        capture_output=True,
        check=True,
    ).stdout
    return {test: Outcome(**outcome) for test, outcome in json.loads(parsed).items()}
