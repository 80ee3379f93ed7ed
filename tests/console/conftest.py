"""The console in a real browser: headless Chromium driven by Playwright,
against a real server (gunicorn, :mod:`tests.server`) on SQLite with seeded data.

Fixtures:

* ``chromium``: Debian's ``/usr/bin/chromium`` (``PLACEMENT_CHROMIUM``
  overrides), launched by Playwright; missing, every browser test *fails*
  with the command that installs it (``.ci/run`` runs it).
* ``page``: a fresh browser context and page; an uncaught script error
  fails the test; its last screen is saved under the artifacts directory.
* ``small_cloud``: a server with :func:`tests.console.seed.small_cloud`'s
  trees, shared by a test module: ``(base_url, ids)``.
* ``artifacts``: where screenshots and measurements go
  (``$PLACEMENT_TEST_ARTIFACTS/console``, default ``test-artifacts/console``).

Tests of another console page (the "why" page) sit beside these and use the
same fixtures.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import rig, server
from tests.console import seed

CHROMIUM = os.environ.get("PLACEMENT_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent.parent


def artifacts_dir() -> Path:
    path = Path(os.environ.get("PLACEMENT_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "console"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def artifacts() -> Path:
    return artifacts_dir()


@pytest.fixture(scope="session")
def chromium() -> Iterator:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"The console's browser tests need Chromium at {CHROMIUM}, which is missing: "
            "install it with 'apt-get install -y chromium' (.ci/run does), "
            "or point PLACEMENT_CHROMIUM at one.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(chromium, request: pytest.FixtureRequest, artifacts: Path) -> Iterator:
    context = chromium.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(15_000)
    opened = context.new_page()
    script_errors: list[str] = []
    opened.on("pageerror", lambda error: script_errors.append(str(error)))
    try:
        yield opened
        assert not script_errors, script_errors
    finally:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            opened.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
        finally:
            context.close()


@pytest.fixture(scope="module")
def small_cloud() -> Iterator[tuple[str, dict[str, str]]]:
    with rig.migrated_database("sqlite") as url, server.gunicorn(url, workers=2) as base:
        yield base, seed.small_cloud(seed.Http(base))
