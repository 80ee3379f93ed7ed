"""The executor's options: which executor, its bounded waits, and how Nova is reached."""

from __future__ import annotations

import pytest

from placement import actionplan_opts
from placement import conf as placement_conf


def _load(tmp_path, text: str = ""):
    path = tmp_path / "placement.conf"
    path.write_text(text)
    return placement_conf.load([], default_config_files=[str(path)])


def test_the_placement_executor_is_the_default_with_upstream_nova_client_defaults(tmp_path):
    conf = _load(tmp_path)
    assert actionplan_opts.executor(conf) == actionplan_opts.PLACEMENT
    assert conf.nova_client.api_version == "2.56"
    assert conf.nova_client.endpoint_type == "publicURL"
    assert actionplan_opts.interface(conf) == "public"
    assert conf.nova_client.region_name is None
    applier = conf.watcher_applier
    assert (applier.migration_timeout, applier.resize_timeout) == (900.0, 900.0)
    assert applier.server_state_timeout == 300.0
    assert conf.watcher_clients_auth.auth_type is None


def test_an_unknown_executor_stops_start_up_naming_the_option(tmp_path):
    with pytest.raises(placement_conf.ConfigError, match="executor"):
        _load(tmp_path, "[watcher_applier]\nexecutor = ironic\n")


@pytest.mark.parametrize(
    "endpoint_type,interface", [("internalURL", "internal"), ("admin", "admin")]
)
def test_the_endpoint_type_is_a_keystoneauth_interface(tmp_path, endpoint_type, interface):
    conf = _load(tmp_path, f"[nova_client]\nendpoint_type = {endpoint_type}\n")
    assert actionplan_opts.interface(conf) == interface


def test_keystoneauth_reads_its_plugin_options_from_watcher_clients_auth(tmp_path):
    from keystoneauth1 import loading

    conf = _load(
        tmp_path,
        "[watcher_applier]\nexecutor = nova\n"
        "[watcher_clients_auth]\nauth_type = admin_token\n"
        "endpoint = http://127.0.0.1:8774/v2.1\ntoken = secret\ntimeout = 30\n",
    )
    auth = loading.load_auth_from_conf_options(conf, actionplan_opts.CLIENTS_AUTH_GROUP)
    assert auth.get_endpoint(None) == "http://127.0.0.1:8774/v2.1"
    assert auth.get_token(None) == "secret"
    session = loading.load_session_from_conf_options(
        conf, actionplan_opts.CLIENTS_AUTH_GROUP, auth=auth
    )
    assert session.timeout == 30.0
