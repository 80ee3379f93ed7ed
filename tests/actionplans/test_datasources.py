"""The datasource declarations and upstream's rule for choosing one."""

from placement.actionplans import datasources, measured


def test_prometheus_answers_the_four_metrics_with_upstreams_meters():
    assert dict(datasources.PROMETHEUS.meters) == {
        "host_cpu_usage": "node_cpu_seconds_total",
        "host_ram_usage": "node_memory_MemAvailable_bytes",
        "instance_cpu_usage": "ceilometer_cpu",
        "instance_ram_usage": "ceilometer_memory_usage",
    }
    assert set(datasources.DECLARED) == {"prometheus"}


def test_candidates_keep_the_order_and_say_why_others_are_passed_over():
    chosen, reasons = datasources.candidates(
        ["gnocchi", "prometheus", "aetos"], [measured.HOST_CPU_USAGE]
    )
    assert chosen == [datasources.PROMETHEUS]
    assert reasons == [
        "gnocchi: not served here (use prometheus)",
        "aetos: not served here (Prometheus behind Keystone; use prometheus)",
    ]


def test_a_datasource_missing_a_metric_is_no_candidate():
    chosen, reasons = datasources.candidates(["prometheus"], ["host_outlet_temp", "host_cpu_usage"])
    assert chosen == []
    assert reasons == ["prometheus: does not answer host_outlet_temp"]


def test_no_datasource_error_lists_the_reasons_or_says_none_is_configured():
    from placement.actionplans.errors import NoDatasource

    assert "none is configured" in str(NoDatasource("basic", []))
    assert str(NoDatasource("basic", ["a", "b"])).endswith("no datasource answers: a; b")
