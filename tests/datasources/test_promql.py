"""Upstream's PromQL, character for character (WATCHER_METRICS.md §1.7, §1.8), and where
[prometheus_client] says Prometheus is (§1.4)."""

import pytest

from placement.actionplans.measured import Query
from placement.datasources import promql


def _build(query: Query, label: str = "c1") -> str:
    return promql.build(query, label, "fqdn", "resource")


def test_host_cpu_inverts_max_to_min() -> None:
    assert _build(Query("host_cpu_usage", "c1", 300, "max")) == (
        "100 - (min by (fqdn)(rate(node_cpu_seconds_total{mode='idle',fqdn='c1'}[300s])) * 100)"
    )


def test_host_ram_inverts_min_to_max() -> None:
    assert _build(Query("host_ram_usage", "c1", 600, "min")) == (
        "(node_memory_MemTotal_bytes{fqdn='c1'} - "
        "max_over_time(node_memory_MemAvailable_bytes{fqdn='c1'}[600s])) / 1024"
    )


@pytest.mark.parametrize("vcpus, shown", [(4, 4), (0, 1)])
def test_instance_cpu_divides_by_vcpus_and_caps_at_100(vcpus: int, shown: int) -> None:
    query = Query("instance_cpu_usage", "u1", 300, "max", vcpus=vcpus)
    assert _build(query, "u1") == (
        "clamp_max((max by (resource)(rate(ceilometer_cpu{resource='u1'}[300s]))/10e+8) "
        f"*(100/{shown}), 100)"
    )


def test_instance_ram_and_count_read_as_avg() -> None:
    query = Query("instance_ram_usage", "u1", 300, "count")
    assert _build(query, "u1") == "avg_over_time(ceilometer_memory_usage{resource='u1'}[300s])"


@pytest.mark.parametrize(
    "query, message",
    [
        (Query("instance_ram_usage", "u1", 300, "median"), "unknown aggregate 'median'"),
        (Query("host_outlet_temp", "c1", 300), "prometheus does not answer host_outlet_temp"),
    ],
)
def test_what_no_promql_answers_is_said(query: Query, message: str) -> None:
    with pytest.raises(promql.CannotBuild, match=message):
        _build(query)


def test_the_endpoint_is_upstreams_http_unless_a_cafile_is_given(tmp_path) -> None:
    from placement import conf
    from placement.datasources import http, prometheus

    def endpoint(text: str) -> http.Endpoint | None:
        path = tmp_path / "placement.conf"
        path.write_text(text)
        return prometheus.endpoint(conf.load(["--config-file", str(path)]))

    assert endpoint("") is None
    assert endpoint("[prometheus_client]\nhost = p\nusername = u\n") == http.Endpoint(
        "http://p:9090/api/v1/"
    )
    tls = "[prometheus_client]\nhost = p\nport = 9091\ncafile = /ca\ncertfile = /c\nkeyfile = /k\n"
    assert endpoint(tls + "username = u\npassword = s\n") == http.Endpoint(
        "https://p:9091/api/v1/", auth=("u", "s"), verify="/ca", cert=("/c", "/k")
    )
