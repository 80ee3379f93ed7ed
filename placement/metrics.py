"""Prometheus metrics: what the code counts, and the exposition that serves it.

Every layer records through the small functions below, which do nothing until
:func:`enable` has run (``[metrics] enabled``): the object layer, the database
helpers and the applier then count without knowing whether anyone scrapes.
``prometheus_client`` is imported only by :func:`enable` and :func:`serve`,
because it picks its storage when first imported: with
``PROMETHEUS_MULTIPROC_DIR`` set (by :func:`prepare_multiprocess`, in the
gunicorn master before any worker exists) every process writes its values to
files there and the exposition, served once by the master, sums them; without
it a single process keeps them in memory and serves them itself.

The metric objects are the one piece of module-level state here: Prometheus
keeps one registry per process, and a counter must be created once.
"""

from __future__ import annotations

import glob
import os
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

#: The directory of multiprocess mode's value files (prometheus_client's name).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

#: ``placement_allocation_candidates_returned`` buckets: candidates per response.
CANDIDATE_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 50000)

#: The label values of ``placement_server_retries_total``'s ``reason``.
RETRY_GENERATION = "generation_conflict"
RETRY_DATABASE = "database_error"


@dataclass(frozen=True)
class _Metrics:
    requests: Any
    latency: Any
    candidates: Any
    conflicts: Any
    conflict_answers: Any
    retries: Any
    pool_in_use: Any
    actions: Any


_metrics: _Metrics | None = None
_lock = threading.Lock()


def enable() -> None:
    """Create the metrics (once per process); recording starts now."""
    global _metrics
    with _lock:
        if _metrics is not None:
            return
        import prometheus_client as prom

        # Arguments run left to right: the metrics register in the order they always did.
        _metrics = _Metrics(
            **_request_metrics(prom),
            **_conflict_metrics(prom),
            pool_in_use=prom.Gauge(
                "placement_db_pool_connections_in_use",
                "Database connections checked out of the pool, summed over live processes.",
                multiprocess_mode="livesum",
            ),
            actions=prom.Counter(
                "placement_applier_actions",
                "Actions the applier ran to a recorded final state, by action type and state.",
                ("action_type", "state"),
            ),
        )


def _request_metrics(prom: Any) -> dict[str, Any]:
    """What the API answers: requests, their latency, candidates returned."""
    request_labels = ("route", "method", "status")
    return {
        "requests": prom.Counter(
            "placement_http_requests",
            "API requests answered, by route template, method and status.",
            request_labels,
        ),
        "latency": prom.Histogram(
            "placement_http_request_duration_seconds",
            "Seconds from a request's arrival to its answer, by route template, method and status.",
            request_labels,
        ),
        "candidates": prom.Histogram(
            "placement_allocation_candidates_returned",
            "Allocation requests returned by one GET /allocation_candidates.",
            buckets=CANDIDATE_BUCKETS,
        ),
    }


def _conflict_metrics(prom: Any) -> dict[str, Any]:
    """Races: generation conflicts, the 409s they answer, the server's retries."""
    return {
        "conflicts": prom.Counter(
            "placement_generation_conflicts",
            "Lost generation compare-and-swaps, by kind of generation "
            "(resource_provider or consumer), retried or not.",
            ("kind",),
        ),
        "conflict_answers": prom.Counter(
            "placement_concurrent_update_responses",
            "409 answers with error code placement.concurrent_update (a stale "
            "generation sent, or a race lost after the server's retries), by route "
            "template and method.",
            ("route", "method"),
        ),
        "retries": prom.Counter(
            "placement_server_retries",
            "Whole transactions run again server-side, by reason "
            "(generation_conflict or database_error).",
            ("reason",),
        ),
    }


def enabled() -> bool:
    return _metrics is not None


def request_done(route: str, method: str, status: str, seconds: float) -> None:
    if _metrics is not None:
        _metrics.requests.labels(route, method, status).inc()
        _metrics.latency.labels(route, method, status).observe(seconds)


def candidates_returned(count: int) -> None:
    if _metrics is not None:
        _metrics.candidates.observe(count)


def _count(counter: str, *labels: str) -> None:
    """Add one to the named counter of :class:`_Metrics`, if enabled."""
    if _metrics is not None:
        getattr(_metrics, counter).labels(*labels).inc()


def generation_conflict(kind: str) -> None:
    """A compare-and-swap of a ``kind`` generation found the row changed."""
    _count("conflicts", kind)


def concurrent_update_answered(route: str, method: str) -> None:
    _count("conflict_answers", route, method)


def server_retry(reason: str) -> None:
    """A transaction is about to run again; ``reason`` is one of the ``RETRY_*``."""
    _count("retries", reason)


def action_finished(action_type: str, state: str) -> None:
    """An action's final state was recorded."""
    _count("actions", action_type, state)


def watch_pool(*engines: Engine) -> None:
    """Keep ``placement_db_pool_connections_in_use`` equal to the connections
    the ``engines``' pools have handed out (pass an engine and its readers,
    ``db.readers_of(engine)``: two pools on a database server).

    The gauge is set from the pools' own counts rather than moved by one per
    event: a connection whose (re)connect fails is checked in without having
    been checked out. At ``checkin`` the pool still counts the connection.
    Pools that keep no count (SQLite's in-memory ``StaticPool``) are skipped.
    """
    pools = [
        pool
        for pool in dict.fromkeys(engine.pool for engine in engines)
        if getattr(pool, "checkedout", None) is not None
    ]
    if _metrics is None or not pools:
        return
    gauge = _metrics.pool_in_use

    def in_use() -> int:
        return sum(pool.checkedout() for pool in pools)  # type: ignore[attr-defined]

    def on_checkout(*_args: Any) -> None:
        gauge.set(in_use())

    def on_checkin(*_args: Any) -> None:
        gauge.set(max(in_use() - 1, 0))

    for pool in pools:
        event.listen(pool, "checkout", on_checkout)
        event.listen(pool, "checkin", on_checkin)


def multiprocess() -> bool:
    """True when this process writes its values for another process to serve."""
    return bool(os.environ.get(MULTIPROC_ENV))


def prepare_multiprocess() -> str | None:
    """Before any worker starts: an empty value directory in the environment.

    Keeps an operator's ``PROMETHEUS_MULTIPROC_DIR`` (emptied of the last
    run's files, as prometheus_client requires), else makes a temporary one.
    Returns the directory if it made it (the caller removes it at exit).
    """
    path = os.environ.get(MULTIPROC_ENV)
    if path:
        for stale in glob.glob(os.path.join(path, "*.db")):
            os.unlink(stale)
        return None
    path = tempfile.mkdtemp(prefix="placement-metrics-")
    os.environ[MULTIPROC_ENV] = path
    return path


def process_exited(pid: int) -> None:
    """Drop a dead worker's live gauges (its counters stay in the sums)."""
    from prometheus_client import multiprocess as prom_multiprocess

    prom_multiprocess.mark_process_dead(pid)


def serve(host: str, port: int) -> Any:
    """Serve the exposition on ``host:port`` from a thread; returns the server.

    In multiprocess mode it sums the value files of every process; otherwise
    it serves this process's registry (with the process and runtime metrics).
    """
    import prometheus_client as prom
    from prometheus_client import multiprocess as prom_multiprocess

    registry = prom.REGISTRY
    if multiprocess():
        registry = prom.CollectorRegistry()
        prom_multiprocess.MultiProcessCollector(registry)
    server, _thread = prom.start_http_server(port, addr=host, registry=registry)
    return server


def serve_alone(host: str, port: int) -> Any:
    """:func:`enable` and :func:`serve` for a process that serves only itself.

    Drops a ``PROMETHEUS_MULTIPROC_DIR`` inherited from a placement-api parent
    (which does not serve our values) before prometheus_client is imported.
    """
    os.environ.pop(MULTIPROC_ENV, None)
    enable()
    return serve(host, port)
