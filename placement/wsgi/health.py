"""``/healthcheck``: oslo.middleware's healthcheck, with a database backend.

The answer is upstream OpenStack's: oslo.middleware's ``Healthcheck`` app
runs the backends listed in ``[healthcheck] backends`` and answers 200 with a
plain ``OK`` (204 to ``HEAD``), or 503 with the failing backends' reasons.
Our backend, ``placement_database`` (the default list), asks the database for
``SELECT 1`` and fails when it raises or does not answer within
``[healthcheck] database_timeout``; ``disable_by_file`` (with
``disable_by_file_path``) takes a node out of a load balancer's pool.

The path is answered before any other layer: no authentication, no request
log line, no request metrics, and nothing is written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent import futures
from typing import Any

import sqlalchemy
from oslo_config import cfg
from oslo_middleware.healthcheck import Healthcheck, pluginbase

from placement import auth
from placement import conf as placement_conf
from placement.db import engine as db_engine

PATH = "/healthcheck"


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    """The ``placement_database`` backend: does the database answer in time?

    Each probe opens a connection of its own (no pool), so it neither waits
    for nor takes a connection the API's requests need, it proves the
    database still accepts connections, and nothing stays open between
    probes. The query runs on a
    daemon thread: a database that accepts a connection and then says
    nothing only makes the probe give up after the timeout. At most one probe
    runs at a time; while one hangs, later probes wait on it again.
    """

    def __init__(self, oslo_conf: cfg.ConfigOpts, conf: dict[str, Any]) -> None:
        super().__init__(oslo_conf, conf)
        self._timeout = oslo_conf.healthcheck.database_timeout
        self._engine: sqlalchemy.Engine | None = None
        self._probe: futures.Future[None] | None = None
        self._lock = threading.Lock()

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        probe = self._current_probe()
        try:
            probe.result(timeout=self._timeout)
        except futures.TimeoutError:
            return pluginbase.HealthcheckResult(
                available=False,
                reason="DATABASE TIMEOUT",
                details=f"no answer to SELECT 1 within {self._timeout} s",
            )
        except Exception as exc:  # any failure to answer makes the node unhealthy
            return pluginbase.HealthcheckResult(
                available=False, reason="DATABASE UNAVAILABLE", details=str(exc)
            )
        return pluginbase.HealthcheckResult(available=True, reason="OK")

    def _current_probe(self) -> futures.Future[None]:
        with self._lock:
            if self._probe is None or self._probe.done():
                self._probe = futures.Future()
                threading.Thread(
                    target=self._select_one,
                    args=(self._probe,),
                    name="placement-healthcheck",
                    daemon=True,
                ).start()
            return self._probe

    def _select_one(self, probe: futures.Future[None]) -> None:
        try:
            if self._engine is None:
                self._engine = _engine(self.oslo_conf)
            with self._engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        except Exception as exc:  # handed to the waiting probe
            probe.set_exception(exc)
        else:
            probe.set_result(None)


def _engine(conf: cfg.ConfigOpts) -> sqlalchemy.Engine:
    """An engine on the API's database that opens a connection per use.

    A SQLite file is opened read-only: a missing file is then an error, where
    an ordinary open would create an empty database in its place.
    """
    url = db_engine.add_connection_parameters(
        placement_conf.database_url(conf), conf.placement_database.connection_parameters
    )
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        url = url.set(
            database=f"file:{url.database}", query={**url.query, "mode": "ro", "uri": "true"}
        )
    return sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)


class HealthRoute:
    """``/healthcheck`` to oslo.middleware's app, every other path to the API."""

    def __init__(self, conf: cfg.ConfigOpts, app: auth.WSGIApp) -> None:
        self.app = app
        # A request the healthcheck declines ([healthcheck] allowed_source_ranges,
        # ignore_proxied_requests) goes on to the API, which knows no such path.
        self.healthcheck = Healthcheck(app, conf)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == PATH:
            return self.healthcheck(environ, start_response)
        return self.app(environ, start_response)
