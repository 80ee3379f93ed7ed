"""``[api] auth_strategy = keystone``: keystonemiddleware against a stand-in Keystone.

The real auth_token middleware validates tokens over HTTP with the identity
service served by :mod:`tests.identity`; nothing of it is mocked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import falcon.testing
import pytest

from placement import auth, keystone
from placement import conf as placement_conf
from placement.wsgi import create_app
from tests import identity as stand_in
from tests import rig

PUBLIC_URI = "https://keystone.example.com/identity"
ERROR_401 = {
    "error": {
        "code": 401,
        "title": "Unauthorized",
        "message": "The request you have made requires authentication.",
    }
}


def write_conf(path: str, db_url: str, identity_url: str) -> str:
    with open(path, "w") as stream:
        stream.write(
            f"[api]\nauth_strategy = keystone\n[placement_database]\nconnection = {db_url}\n"
            + stand_in.authtoken_section(identity_url, PUBLIC_URI)
        )
    return path


@pytest.fixture(scope="module")
def identity():
    with stand_in.serving() as running:
        running.tokens.update(
            {
                "admin-token": stand_in.Token("alice", "proj-a", ["admin", "member", "reader"]),
                "reader-token": stand_in.Token("bob", "proj-b", ["reader"]),
                "expired-token": stand_in.Token("carol", "proj-c", ["admin"], expired=True),
            }
        )
        yield running


@pytest.fixture(scope="module")
def conf(identity, tmp_path_factory):
    with rig.fresh_database("sqlite") as url:
        rig.migrated(url)
        path = write_conf(
            str(tmp_path_factory.mktemp("keystone") / "placement.conf"), url, identity.url
        )
        yield placement_conf.load(["--config-file", path])


@pytest.fixture(scope="module")
def app(conf):
    wsgi_app = create_app(conf)
    yield wsgi_app
    wsgi_app.placement_engine.dispose()


def get(app, path, token=None, version="1.6"):
    headers = {"OpenStack-API-Version": f"placement {version}"}
    if token is not None:
        headers["X-Auth-Token"] = token
    return falcon.testing.simulate_get(app, path, headers=headers)


def test_valid_token_reaches_the_handler(app):
    response = get(app, "/traits", "admin-token")
    assert response.status_code == 200
    assert "HW_CPU_X86_AVX" in response.json["traits"]


def test_token_roles_and_project_become_the_request_context(conf):
    seen = {}

    def probe(environ, start_response):
        seen["ctx"] = environ[auth.ENVIRON_KEY]
        start_response("204 No Content", [])
        return [b""]

    stack = keystone.wrap(conf, auth.ContextMiddleware(probe))
    assert get(stack, "/anything", "reader-token").status_code == 204
    ctx = seen["ctx"]
    assert (ctx.user_id, ctx.project_id, ctx.roles) == ("bob", "proj-b", ["reader"])


def test_policy_still_applies_to_a_valid_token(app):
    response = get(app, "/traits", "reader-token")
    assert response.status_code == 403
    assert "Policy does not allow placement:traits:list to be performed." in response.text


@pytest.mark.parametrize("token", [None, "forged-token", "expired-token"])
def test_missing_unknown_or_expired_token_is_401(app, token):
    response = get(app, "/traits", token)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == f'Keystone uri="{PUBLIC_URI}"'
    assert response.json == ERROR_401
    assert "openstack-api-version" not in response.headers


@pytest.mark.parametrize("token", [None, "forged-token"])
def test_keystonemiddlewares_401_is_json_even_for_a_client_preferring_html(app, token):
    """Upstream passes keystonemiddleware's answer on as it is (unlike noauth2's 401,
    which is the HTML error page for such a client: gabbits/auth-noauth.yaml)."""
    headers = {"Accept": "text/html"}
    if token is not None:
        headers["X-Auth-Token"] = token
    response = falcon.testing.simulate_get(app, "/traits", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == f'Keystone uri="{PUBLIC_URI}"'
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.json["error"]["code"] == 401


def test_unknown_token_is_checked_with_the_identity_service(app, identity):
    identity.calls.clear()
    get(app, "/traits", "another-forged-token")
    assert ("GET", "/v3/auth/tokens") in identity.calls


@pytest.mark.parametrize("path", ["/", ""])
def test_root_needs_no_token(conf, path):
    def probe(environ, start_response):
        start_response("200 OK", [])
        return [b""]

    stack = keystone.wrap(conf, probe)
    environ = falcon.testing.create_environ(path="/")
    environ["PATH_INFO"] = path
    statuses = []
    stack(environ, lambda status, headers, exc_info=None: statuses.append(status))
    assert statuses == ["200 OK"]


def test_root_document_without_token(app):
    response = get(app, "/", None)
    assert response.status_code == 200
    assert response.json["versions"][0]["id"] == "v1.0"


_WITHOUT_KEYSTONEMIDDLEWARE = """
import sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name == "keystonemiddleware" or name.startswith("keystonemiddleware."):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, Blocker())
from placement.cmd import api
sys.exit(api.main(sys.argv[1:]))
"""


def test_keystone_without_keystonemiddleware_stops_start_up(conf, tmp_path):
    config_file = conf.config_file[0]
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_KEYSTONEMIDDLEWARE, "--config-file", config_file],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert result.returncode == 2, result.stderr
    assert "auth_strategy = keystone needs keystonemiddleware" in result.stderr
    assert "pip install" in result.stderr
    assert "Traceback" not in result.stderr


def test_401_body_is_keystonemiddleware_json(app):
    response = get(app, "/traits", "forged-token")
    assert json.loads(response.text)["error"]["code"] == 401
