"""``[flavors]``: operator-named flavors read from every config file, checked at load."""

import pytest

from placement import conf, flavor_opts


def test_flavors_from_files_and_dirs_later_wins(tmp_path):
    first = tmp_path / "placement.conf"
    first.write_text("[flavors]\nm1.small = VCPU:1,MEMORY_MB:512\nm1.big = VCPU:8\n")
    extra = tmp_path / "conf.d"
    extra.mkdir()
    (extra / "50-flavors.conf").write_text("[flavors]\nm1.big = VCPU:16,MEMORY_MB:1024\n")
    loaded = conf.load(["--config-file", str(first), "--config-dir", str(extra)])
    assert flavor_opts.flavor_resources(loaded, "m1.small") == {"VCPU": 1, "MEMORY_MB": 512}
    assert flavor_opts.flavor_resources(loaded, "m1.big") == {"VCPU": 16, "MEMORY_MB": 1024}
    assert flavor_opts.flavor_resources(loaded, "VCPU:2,DISK_GB:1") == {"VCPU": 2, "DISK_GB": 1}
    with pytest.raises(flavor_opts.InvalidFlavor, match="^unknown flavor or invalid resources"):
        flavor_opts.flavor_resources(loaded, "m1.huge")


def test_no_files_no_flavors():
    assert flavor_opts.configured_flavors(conf.load([], default_config_files=[])) == {}


def test_a_bad_flavor_stops_start_up_naming_it(tmp_path):
    path = tmp_path / "placement.conf"
    path.write_text("[flavors]\nm1.small = VCPU:one\n")
    with pytest.raises(conf.ConfigError, match=r"^Invalid value for \[flavors\] m1.small: "):
        conf.load(["--config-file", str(path)])
