"""The Nova client's session from the configuration, and Nova's fault messages.

Calls to a real Nova are exercised by ``tests/nova/`` against the test cloud.
"""

from __future__ import annotations

import pytest

from placement import conf as placement_conf
from placement.effects.nova import client


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
