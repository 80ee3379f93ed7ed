"""Request metrics for real: gunicorn with two workers, one exposition for both.

The server runs with ``-c python:placement.wsgi.gunicorn_conf`` as the README
tells operators; its multiprocess directory is one we name, so the test can
see that both workers wrote values and that a dead worker's gauge is dropped.
"""

from __future__ import annotations

import glob
import json
import os
import re
import signal
import socket
import time
import urllib.error
import urllib.request
import uuid
from concurrent import futures

import falcon
import pytest

from placement.db import engine as db_engine
from placement.wsgi import instrument
from tests import rig, server

GUNICORN_CONF = ["-c", "python:placement.wsgi.gunicorn_conf"]
ADMIN = {"x-auth-token": "admin", "openstack-api-version": "placement latest"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``(api base URL, metrics URL, multiprocess directory)``."""
    directory = tmp_path_factory.mktemp("multiproc")
    port = server.free_port()
    with rig.fresh_database("sqlite") as url:
        rig.migrated(url)
        with server.gunicorn(
            url,
            workers=2,
            conf_extra=f"[metrics]\nenabled = true\nbind = 127.0.0.1:{port}\n",
            options=GUNICORN_CONF,
            environ={"PROMETHEUS_MULTIPROC_DIR": str(directory)},
        ) as base:
            yield base, f"http://127.0.0.1:{port}/metrics", str(directory)


def send(method: str, url: str, body: object = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    headers = dict(ADMIN, **({"content-type": "application/json"} if data else {}))
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def listings(metrics_url: str) -> float:
    """How many ``GET /resource_providers`` answered 200, over every worker."""
    return server.sample(
        server.scrape(metrics_url),
        "placement_http_requests_total",
        route="/resource_providers",
        method="GET",
        status="200",
    )


def test_counts_add_up_across_workers(served):
    base, metrics_url, directory = served
    before = listings(metrics_url)
    with futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: send("GET", base + "/resource_providers")[0], range(80)))
    assert statuses == [200] * 80
    samples = server.scrape(metrics_url)
    labels = {"route": "/resource_providers", "method": "GET", "status": "200"}
    assert server.sample(samples, "placement_http_requests_total", **labels) == before + 80
    assert (
        server.sample(samples, "placement_http_request_duration_seconds_count", **labels)
        == before + 80
    )
    writers = {re.search(r"_(\d+)\.db$", path).group(1) for path in glob.glob(directory + "/*")}
    assert len(writers) >= 2  # both workers (and the master) wrote values


def test_metrics_are_not_on_the_api_port(served):
    base, _, _ = served
    status, body = send("GET", base + "/metrics")
    assert status in (401, 404)
    assert b"placement_http_requests_total" not in body


def test_route_templates_unmatched_paths_and_unknown_methods(served):
    base, metrics_url, _ = served
    send("GET", f"{base}/resource_providers/{uuid.uuid4()}")
    send("GET", f"{base}/no/such/{uuid.uuid4()}")
    send("BREW", f"{base}/resource_providers")
    samples = server.scrape(metrics_url)
    template = "/resource_providers/{uuid}"
    assert server.sample(
        samples, "placement_http_requests_total", route=template, method="GET", status="404"
    )
    assert server.sample(
        samples, "placement_http_requests_total", route="unmatched", method="GET", status="404"
    )
    # Falcon routes it, then refuses a method it does not know: 400.
    assert server.sample(
        samples,
        "placement_http_requests_total",
        route="/resource_providers",
        method="other",
        status="400",
    )
    assert not [key for key in samples if "/no/such" in key]


def test_candidates_and_conflicts(served):
    base, metrics_url, _ = served
    before = server.scrape(metrics_url)
    status, body = send("POST", base + "/resource_providers", {"name": f"rp-{uuid.uuid4()}"})
    assert status == 200
    provider = json.loads(body)
    inventories = f"{base}/resource_providers/{provider['uuid']}/inventories"
    inventory = {"inventories": {"VCPU": {"total": 8}}}
    status, _ = send("PUT", inventories, {"resource_provider_generation": 0, **inventory})
    assert status == 200
    status, _ = send("PUT", inventories, {"resource_provider_generation": 0, **inventory})
    assert status == 409  # a stale generation
    assert send("GET", base + "/allocation_candidates?resources=VCPU:2")[0] == 200
    assert send("GET", base + "/allocation_candidates?resources=VCPU:99")[0] == 200
    after = server.scrape(metrics_url)

    def grew(name: str, **labels: str) -> float:
        return server.sample(after, name, **labels) - server.sample(before, name, **labels)

    assert grew("placement_allocation_candidates_returned_count") == 2
    assert grew("placement_allocation_candidates_returned_sum") == 1
    assert grew("placement_allocation_candidates_returned_bucket", le="0.0") == 1
    route = "/resource_providers/{uuid}/inventories"
    assert grew("placement_concurrent_update_responses_total", route=route, method="PUT") == 1


def test_pool_gauge_and_dead_workers(served):
    base, metrics_url, directory = served
    assert send("GET", base + "/resource_providers")[0] == 200
    assert server.sample(server.scrape(metrics_url), "placement_db_pool_connections_in_use") == 0
    counted = listings(metrics_url)
    gauges = glob.glob(directory + "/gauge_livesum_*.db")
    pids = {int(re.search(r"_(\d+)\.db$", path).group(1)) for path in gauges}
    worker = max(pids)  # only workers write: the master creates no app
    os.kill(worker, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while os.path.exists(f"{directory}/gauge_livesum_{worker}.db"):
        assert time.monotonic() < deadline, "the dead worker's gauge file stayed"
        time.sleep(0.2)
    still = listings(metrics_url)
    assert still == counted  # a dead worker's counts stay in the sums


def test_a_second_process_without_the_gunicorn_hooks_fails_loudly(tmp_path):
    """Outside prepared gunicorn each process serves itself: the second cannot bind."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        url = f"sqlite:///{tmp_path / 'p.db'}"
        conf = rig.make_conf(url, metrics={"enabled": True, "bind": f"127.0.0.1:{port}"})
        engine = db_engine.engine_from_url(url)
        try:
            with pytest.raises(RuntimeError, match="placement.wsgi.gunicorn_conf"):
                instrument.instrument(conf, engine, falcon.App(), lambda environ, start: [])
        finally:
            engine.dispose()


def test_describe_says_where_metrics_are_or_would_be():
    conf = rig.make_conf("sqlite://")
    assert instrument.describe(conf) == (
        "Metrics: disabled (set [metrics] enabled = true to serve them at "
        "http://127.0.0.1:9464/metrics)"
    )
    conf.set_override("enabled", True, group="metrics")
    assert instrument.describe(conf) == "Metrics: http://127.0.0.1:9464/metrics"
