"""The console's files, served before authentication (``placement/console/assets.py``)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from pathlib import Path

import falcon.testing
import pytest
import tomllib

from placement.console import assets
from tests import rig

PAGES = ("index.html", "app.js", "api.js", "ui.js", "capacity.js", "why.js", "plans.js")


@pytest.fixture(scope="module")
def app() -> Iterator:
    with rig.placement_app("sqlite") as (wsgi_app, _conf):
        yield wsgi_app


def test_the_console_opens_without_a_token(app):
    reply = rig.request(app, "GET", "/console/")
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="app.js"></script>' in reply.body
    assert "script-src 'self'" in reply.headers["content-security-policy"]
    assert reply.headers["cache-control"] == "no-cache"
    assert reply.headers["x-openstack-request-id"].startswith("req-")


def test_bare_prefix_redirects_to_the_page_under_the_mount_point(app):
    reply = rig.request(app, "GET", "/console")
    assert (reply.status, reply.headers["location"]) == (301, "/console/")
    environ = falcon.testing.create_environ(path="/console")
    environ["SCRIPT_NAME"] = "/placement"
    seen = {}
    app(environ, lambda status, headers, exc_info=None: seen.update(headers))
    assert seen["Location"] == "/placement/console/"


@pytest.mark.parametrize("name", PAGES)
def test_every_page_module_is_served_with_its_type(app, name):
    reply = rig.request(app, "GET", f"/console/{name}")
    assert reply.status == 200
    expected = "text/html" if name.endswith(".html") else "text/javascript"
    assert reply.headers["content-type"].startswith(expected)
    assert reply.headers["x-content-type-options"] == "nosniff"
    assert int(reply.headers["content-length"]) == len(reply.body) > 0


def test_an_unchanged_file_is_not_sent_again(app):
    first = rig.request(app, "GET", "/console/capacity.js")
    again = rig.request(
        app, "GET", "/console/capacity.js", {"If-None-Match": first.headers["etag"]}
    )
    assert (again.status, again.body) == (304, b"")
    head = rig.request(app, "HEAD", "/console/capacity.js")
    assert (head.status, head.body) == (200, b"")
    assert head.headers["content-length"] == first.headers["content-length"]


def test_settings_say_how_the_deployment_authenticates(app):
    reply = rig.request(app, "GET", "/console/settings.json")
    assert reply.json() == {"auth_strategy": "noauth2"}
    assert assets.load_assets("keystone")["settings.json"].body == b'{"auth_strategy": "keystone"}'


def test_unknown_file_and_other_methods_answer_the_error_document(app):
    missing = rig.request(app, "GET", "/console/nope.js", {"Accept": "application/json"})
    assert missing.status == 404
    assert missing.json()["errors"][0]["title"] == "Not Found"
    assert "No such console file." in missing.json()["errors"][0]["detail"]
    posted = rig.request(app, "POST", "/console/app.js", {"Accept": "application/json"})
    assert posted.status == 405
    assert posted.headers["allow"] == "GET, HEAD"


def test_the_console_api_still_needs_a_token(app):
    assert rig.request(app, "GET", "/console/api/capacity").status == 401
    assert rig.request(app, "GET", "/console/api/nothing-here").status == 401


def test_the_package_ships_every_file_the_pages_import():
    """Each ``import ... from "./x.js"`` and ``import("./x.js")`` names a shipped file."""
    shipped = assets.load_assets("noauth2")
    for name, asset in shipped.items():
        if name.endswith(".js"):
            for imported in re.findall(r'(?:from |import\()"\./([\w.]+)"', asset.body.decode()):
                assert imported in shipped, (name, imported)
    assert {"index.html", "console.css", "favicon.svg", *PAGES} <= set(shipped)


def test_every_static_file_is_package_data():
    """An installed (not editable) package ships what ``pyproject.toml``'s
    package-data names: every file the console serves must match it."""
    root = Path(__file__).resolve().parent.parent.parent
    with open(root / "pyproject.toml", "rb") as stream:
        patterns = tomllib.load(stream)["tool"]["setuptools"]["package-data"]["placement"]
    static = root / "placement" / "console" / "static"
    files = [path.relative_to(root / "placement").as_posix() for path in static.rglob("*")]
    assert files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name
