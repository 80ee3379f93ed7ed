"""The Nova client's session from the configuration, and Nova's fault messages.

Calls to a real Nova are exercised by ``tests/nova/`` against the test cloud.
"""

from __future__ import annotations

import pytest
from keystoneauth1 import exceptions as ksa_exceptions

from placement import conf as placement_conf
from placement.effects.nova import client
from tests.effects.nova import scripted


def _conf(tmp_path, text: str):
    path = tmp_path / "placement.conf"
    path.write_text(text)
    return placement_conf.load([], default_config_files=[str(path)])


def test_admin_token_names_the_compute_endpoint_without_keystone(tmp_path):
    conf = _conf(
        tmp_path,
        "[watcher_applier]\nexecutor = nova\n[watcher_clients_auth]\nauth_type = admin_token\n"
        "endpoint = http://127.0.0.1:8774/v2.1\ntoken = secret\n",
    )
    compute = client.session_from(conf)
    assert compute.get_endpoint() == "http://127.0.0.1:8774/v2.1"
    assert (compute.service_type, compute.interface) == ("compute", "public")


def test_no_auth_configured_is_an_error_naming_the_group(tmp_path):
    conf = _conf(tmp_path, "[watcher_applier]\nexecutor = nova\n")
    with pytest.raises(client.NovaError, match=r"^\[watcher_clients_auth\] auth_type is not set"):
        client.session_from(conf)


def test_nova_s_fault_message_is_carried():
    body = {"badRequest": {"code": 400, "message": "Compute service of compute2 is unavailable."}}
    assert client.fault_message(body) == "Compute service of compute2 is unavailable."
    assert client.fault_message({"unexpected": 1}) is None
    assert client.fault_message("text") is None


class _VersionDocument:
    """A compute endpoint answering only its version document, offering ``version``."""

    def __init__(self, version: str) -> None:
        self.version = version

    def request(self, path: str, method: str, **kwargs):
        assert (method, path) == ("GET", "/")
        body = {"version": {"id": "v2.1", "version": self.version, "min_version": "2.1"}}
        return scripted.response(200, body)


def test_a_nova_at_or_above_the_floor_is_fine():
    assert client.check_floor(client.Nova(_VersionDocument("2.95"))) is None
    assert client.check_floor(client.Nova(_VersionDocument(client.FLOOR))) is None


def test_a_nova_below_the_floor_is_refused_naming_both_versions():
    refusal = client.check_floor(client.Nova(_VersionDocument("2.58")))
    assert refusal is not None
    assert "offers microversions up to 2.58" in refusal and f"needs {client.FLOOR}" in refusal


def test_the_applier_refuses_to_start_without_a_way_to_reach_nova(tmp_path):
    from placement.cmd import applier

    conf = _conf(tmp_path, "[watcher_applier]\nexecutor = nova\n")
    with pytest.raises(placement_conf.ConfigError, match=r"executor = nova: \[watcher_clients"):
        applier._check_nova(conf)


def test_the_applier_starts_while_nova_cannot_be_reached(tmp_path, caplog):
    """Nothing listens on port 1: a warning, and the actions will wait for Nova."""
    from placement.cmd import applier

    conf = _conf(
        tmp_path,
        "[watcher_applier]\nexecutor = nova\nnova_retries = 0\n"
        "[watcher_clients_auth]\nauth_type = admin_token\n"
        "endpoint = http://127.0.0.1:1/v2.1\ntoken = secret\n",
    )
    applier._check_nova(conf)
    assert "cannot be checked now" in caplog.text


@pytest.mark.parametrize(
    ("error", "maybe_taken"),
    [
        (ksa_exceptions.ConnectFailure("NewConnectionError: Connection refused"), False),
        (ksa_exceptions.ConnectFailure("Connection aborted: RemoteDisconnected"), True),
        (ksa_exceptions.ConnectTimeout("Read timed out"), True),
    ],
)
def test_unreachable_says_whether_the_request_may_have_reached_nova(error, maybe_taken):
    nova = scripted.ScriptedNova()
    nova.fail("POST", "/servers/", error)
    with pytest.raises(client.Unreachable) as caught:
        client.Nova(nova).live_migrate(scripted.SERVER, None)
    assert caught.value.maybe_taken is maybe_taken


def test_gateway_errors_are_unreachable_and_other_errors_refusals():
    nova = scripted.ScriptedNova()
    nova.fail("GET", "/servers/", scripted.answer(502, "bad gateway"))
    nova.fail("GET", "/servers/", scripted.answer(403, "Policy doesn't allow"))
    with pytest.raises(client.Unreachable):
        client.Nova(nova).server(scripted.SERVER)
    with pytest.raises(client.NovaError) as caught:
        client.Nova(nova).server(scripted.SERVER)
    assert not isinstance(caught.value, client.Unreachable)
    assert str(caught.value) == "Policy doesn't allow"
