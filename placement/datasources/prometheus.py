"""The prometheus datasource: upstream's queries, answered by one Prometheus.

Built for one audit run from ``[prometheus_client]`` and the retries of
``[watcher_datasources]``. Each :class:`~placement.actionplans.measured.Query`
becomes upstream's PromQL (``promql.py``), asked as an instant query at
Prometheus's "now"; the first element of the vector is the value, as upstream
reads it. What cannot be answered is a reading with no value and the reason,
never a number: a host no labelled scrape target names (upstream raises), an
empty vector, a refusal (said at once), Prometheus unreachable (said after
``query_max_retries`` attempts; the queries after it are not retried again).

A compute node's name (Nova's service host) is matched to a value of the fqdn
label on the active scrape targets: equal, or the first DNS label of a value
with dots (``compute1`` → ``compute1.example.com``); an unknown name reads the
targets again once, as upstream does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import requests
from oslo_config import cfg

from placement import actionplan_opts
from placement.actionplans import datasources, measured
from placement.actionplans.measured import Measurements, Query, Reading
from placement.datasources import http, promql


def endpoint(conf: cfg.ConfigOpts) -> http.Endpoint | None:
    """Where ``[prometheus_client]`` says Prometheus is (None: no host set).

    As upstream: a ``cafile`` switches to https and verifies with it, client
    certificates need it too, basic auth needs both user and password."""
    opts = conf[actionplan_opts.PROMETHEUS_GROUP]
    if not opts.host:
        return None
    scheme = "https" if opts.cafile else "http"
    auth = (opts.username, opts.password) if opts.username and opts.password else None
    cert = (opts.certfile, opts.keyfile) if opts.cafile and opts.certfile and opts.keyfile else None
    return http.Endpoint(
        f"{scheme}://{opts.host}:{opts.port}/api/v1/",
        auth=auth,
        verify=opts.cafile or False,
        cert=cert,
    )


class Prometheus:
    """The prometheus datasource's client for one audit run."""

    declaration = datasources.PROMETHEUS

    def __init__(
        self,
        where: http.Endpoint,
        *,
        fqdn_label: str = "fqdn",
        uuid_label: str = "resource",
        attempts: int = 10,
        interval: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = where
        self.fqdn_label = fqdn_label
        self.uuid_label = uuid_label
        self._attempts = attempts
        self._interval = interval
        self._sleep = sleep
        self._session = requests.Session()
        self._hosts: dict[str, str] | None = None
        #: Why Prometheus stopped answering during this run (then nothing is retried).
        self._down: str | None = None

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> Prometheus | None:
        """The client ``conf`` describes (None when ``[prometheus_client] host`` is unset)."""
        where = endpoint(conf)
        if where is None:
            return None
        opts = conf[actionplan_opts.PROMETHEUS_GROUP]
        retries = conf[actionplan_opts.DATASOURCES_GROUP]
        return cls(
            where,
            fqdn_label=opts.fqdn_label,
            uuid_label=opts.instance_uuid_label,
            attempts=retries.query_max_retries,
            interval=retries.query_interval,
        )

    # -- what every datasource answers ----------------------------------------

    def check_availability(self) -> str | None:
        """None when ``status/runtimeinfo`` answers (one attempt), else why not."""
        try:
            http.get(self._session, self.endpoint, "status/runtimeinfo", {})
        except (http.Unreachable, http.Refused) as error:
            return f"prometheus at {self.endpoint.base} does not answer: {error}"
        return None

    def list_metrics(self) -> set[str]:
        """The metric names Prometheus holds (``label/__name__/values``)."""
        return set(self._ask("label/__name__/values", {}))

    def close(self) -> None:
        """Close the HTTP session's connections."""
        self._session.close()

    def read(self, queries: tuple[Query, ...]) -> Measurements:
        """A reading for each query, in order."""
        readings = {query: self._reading(query) for query in queries}
        return Measurements(readings=readings, datasource=self.declaration.name)

    # -- one query ------------------------------------------------------------

    def _reading(self, query: Query) -> Reading:
        if self._down is not None:
            return Reading(None, self._down)
        try:
            text = self._promql(query)
        except (_NoValue, promql.CannotBuild) as why:
            return Reading(None, str(why))
        except http.Unreachable as error:
            return self._unreachable(error)
        try:
            return _value(self._ask("query", {"query": text}), text)
        except http.Refused as error:
            return Reading(None, f"prometheus refused {text}: {error}")
        except http.Unreachable as error:
            return self._unreachable(error)

    def _promql(self, query: Query) -> str:
        try:
            label = self._label(query)
        except http.Refused as error:
            raise _NoValue(f"prometheus refused the list of its targets: {error}") from error
        return promql.build(query, label, self.fqdn_label, self.uuid_label)

    def _unreachable(self, error: http.Unreachable) -> Reading:
        self._down = (
            f"prometheus at {self.endpoint.base} unreachable after "
            f"{self._attempts} attempts: {error}"
        )
        return Reading(None, self._down)

    def _ask(self, path: str, params: Mapping[str, str]) -> Any:
        call = lambda: http.get(self._session, self.endpoint, path, params)  # noqa: E731
        return http.retried(call, self._attempts, self._interval, self._sleep)

    # -- host names -----------------------------------------------------------

    def _label(self, query: Query) -> str:
        """The label value naming the query's resource (a host's from the targets)."""
        if measured.RESOURCE_KIND.get(query.metric) != measured.COMPUTE_NODE:
            return query.resource
        for reload in (self._hosts is None, True):
            if reload:
                self._hosts = self._read_hosts()
            assert self._hosts is not None
            if query.resource in self._hosts:
                return self._hosts[query.resource]
        raise _NoValue(
            f"no active scrape target has {self.fqdn_label}={query.resource!r} "
            f"(or a name starting {query.resource + '.'!r}): no host metrics for it"
        )

    def _read_hosts(self) -> dict[str, str]:
        """Label value and, for values with dots, their first DNS label → label value."""
        data = self._ask("targets", {"state": "active"})
        values = {
            target["labels"][self.fqdn_label]
            for target in data.get("activeTargets", [])
            if self.fqdn_label in target.get("labels", {})
        }
        short = {value.split(".", 1)[0]: value for value in sorted(values) if "." in value}
        return {**short, **{value: value for value in values}}


class _NoValue(Exception):
    """No value can be asked for (no scrape target names the host); the message says why."""


def _value(data: Any, text: str) -> Reading:
    """The first element of an instant vector, or why there is no value."""
    result = data.get("result") if isinstance(data, dict) else None
    if not result:
        return Reading(None, f"no series answers {text}")
    try:
        value = float(result[0]["value"][1])
    except (KeyError, IndexError, TypeError, ValueError):
        return Reading(None, f"{text} answered no instant vector: {result[0]!r}"[:300])
    if math.isnan(value) or math.isinf(value):
        return Reading(None, f"{text} is {value}, not a measurement")
    return Reading(value)
