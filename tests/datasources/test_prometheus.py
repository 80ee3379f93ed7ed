"""The prometheus datasource against a real Prometheus holding the plugin's series.

One Prometheus for the session (``seeded.py``): three compute hosts' targets
(one by FQDN, one by short name, one whose CPUs differ), their series and an
instance's pushed the way watcher-tempest-plugin pushes them. Values that go through rate() are
checked within the extrapolation's range (WATCHER_METRICS.md §4.2), the rest
exactly.
"""

from __future__ import annotations

import pytest

from placement.actionplans.measured import Query
from placement.datasources import http, prometheus
from placement.datasources.prometheus import Prometheus
from tests import prometheus as prom
from tests.datasources import seeded
from tests.datasources.seeded import ABSENT, IDLE, LOADED, MIXED, SERVER
from tests.server import free_port

pytestmark = pytest.mark.skipif(not prom.available(), reason="Debian's prometheus is not installed")


def _client(server: prom.Prometheus, **kwargs) -> Prometheus:
    return Prometheus(http.Endpoint(f"{server.url}/api/v1/"), **kwargs)


def _read(server: prom.Prometheus, *queries: Query):
    return _client(server).read(queries)


def test_host_cpu_of_a_loaded_host_is_100(server) -> None:
    query = Query("host_cpu_usage", "compute1", 300)
    reading = _read(server, query).readings[query]
    assert reading.value == pytest.approx(100.0)


def test_host_cpu_of_an_idle_host_is_what_rate_extrapolates(server, seeded_at) -> None:
    query = Query("host_cpu_usage", IDLE, 300)
    # rate() extrapolates to the window's end only while the newest sample is under
    # 1.1 steps old: idle reads 0 % busy within 3 s of the push, more as it ages.
    expected = 100 - 100 * seeded.extrapolated(1.0, seeded_at)
    assert _read(server, query).value(query) == pytest.approx(expected, abs=3)


def test_host_cpu_max_is_the_least_idle_cpu_and_min_the_most(server) -> None:
    """Upstream inverts max and min for host metrics: max busy is min idle."""
    mean, high, low = (Query("host_cpu_usage", MIXED, 300, agg) for agg in ("mean", "max", "min"))
    got = _read(server, mean, high, low)
    assert got.value(low) < got.value(mean) < got.value(high)
    assert got.value(high) - got.value(low) == pytest.approx(
        100 * (got.value(high) - got.value(mean)) / 50, rel=0.05
    )


def test_host_ram_is_kib_used(server) -> None:
    query = Query("host_ram_usage", LOADED, 300)
    assert _read(server, query).value(query) == (4096 - int(4096 * 0.2)) * 1024


def test_instance_cpu_is_percent_of_its_vcpus(server, seeded_at) -> None:
    one, two = (
        Query("instance_cpu_usage", SERVER, 300),
        Query("instance_cpu_usage", SERVER, 300, vcpus=2),
    )
    expected = 80 * seeded.extrapolated(1.0, seeded_at)
    got = _read(server, one, two)
    assert got.value(one) == pytest.approx(expected, abs=3)
    assert got.value(two) == pytest.approx(got.value(one) / 2, rel=0.02)


def test_instance_ram_is_mb(server) -> None:
    query = Query("instance_ram_usage", SERVER, 300)
    assert _read(server, query).value(query) == int(2048 * 0.8)


def test_a_missing_series_is_a_reading_with_the_reason(server) -> None:
    query = Query("instance_ram_usage", ABSENT, 300)
    reading = _read(server, query).readings[query]
    assert reading.value is None
    assert reading.reason == (
        f"no series answers avg_over_time(ceilometer_memory_usage{{resource='{ABSENT}'}}[300s])"
    )


def test_a_host_no_target_names_has_no_value_and_says_why(server) -> None:
    query = Query("host_cpu_usage", "compute9", 300)
    got = _read(server, query)
    assert got.value(query) is None
    assert got.missing() == [
        (
            query,
            "no active scrape target has fqdn='compute9' (or a name starting 'compute9.'): "
            "no host metrics for it",
        )
    ]


def test_a_refused_query_is_said_at_once(server) -> None:
    sleeps: list[float] = []
    query = Query("instance_ram_usage", "a'b", 300)
    reading = _client(server, sleep=sleeps.append).read((query,)).readings[query]
    assert reading.value is None
    assert reading.reason.startswith("prometheus refused avg_over_time(")
    assert "HTTP 400: bad_data" in reading.reason
    assert sleeps == []


def test_availability_and_metric_names(server) -> None:
    client = _client(server)
    assert client.check_availability() is None
    assert {"ceilometer_cpu", "node_memory_MemTotal_bytes"} <= client.list_metrics()


def test_prometheus_down_is_said_after_the_retries() -> None:
    sleeps: list[float] = []
    client = Prometheus(
        http.Endpoint(f"http://127.0.0.1:{free_port()}/api/v1/"),
        attempts=3,
        interval=0.5,
        sleep=sleeps.append,
    )
    first, second = Query("instance_ram_usage", SERVER, 300), Query("host_cpu_usage", LOADED, 300)
    got = client.read((first, second))
    assert [reading.value for reading in got.readings.values()] == [None, None]
    assert got.readings[first].reason.startswith(
        f"prometheus at {client.endpoint.base} unreachable after 3 attempts"
    )
    assert got.readings[second].reason == got.readings[first].reason
    assert sleeps == [0.5, 0.5]  # the second query is not retried again
    assert "does not answer" in client.check_availability()


def test_a_request_that_cannot_be_made_is_refused_not_retried(tmp_path) -> None:
    sleeps: list[float] = []
    where = http.Endpoint("https://127.0.0.1:9/api/v1/", verify=str(tmp_path / "no-such-ca"))
    client = Prometheus(where, sleep=sleeps.append)
    query = Query("instance_ram_usage", SERVER, 300)
    reading = client.read((query,)).readings[query]
    assert reading.value is None and reading.reason.startswith("prometheus refused")
    assert sleeps == []


def test_a_range_vector_answer_is_no_value() -> None:
    data = {"resultType": "matrix", "result": [{"metric": {}, "values": [[1, "2"]]}]}
    reading = prometheus._value(data, "x[5m]")
    assert reading.value is None and reading.reason.startswith("x[5m] answered no instant vector")
