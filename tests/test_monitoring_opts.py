"""``[metrics]`` and ``[healthcheck]`` options."""

from __future__ import annotations

import pytest

from placement import conf as placement_conf
from placement import monitoring_opts


def test_defaults(tmp_path):
    conf = placement_conf.load([], default_config_files=[])
    assert conf.metrics.enabled is False
    assert monitoring_opts.bind_address(conf.metrics.bind) == ("127.0.0.1", 9464)
    assert conf.healthcheck.backends == ["placement_database"]
    assert conf.healthcheck.disable_by_file_path is None


@pytest.mark.parametrize(
    ("bind", "address"),
    [
        ("0.0.0.0:9100", ("0.0.0.0", 9100)),
        ("[::1]:9464", ("::1", 9464)),
        ("metrics:80", ("metrics", 80)),
    ],
)
def test_bind_addresses(bind, address):
    assert monitoring_opts.bind_address(bind) == address


@pytest.mark.parametrize("bind", ["9464", "::1:9464", "host:port", "host:"])
def test_a_bad_bind_stops_start_up(tmp_path, bind):
    path = tmp_path / "placement.conf"
    path.write_text(f"[metrics]\nbind = {bind}\n")
    with pytest.raises(placement_conf.ConfigError, match=r"\[metrics\] bind"):
        placement_conf.load([], default_config_files=[str(path)])
