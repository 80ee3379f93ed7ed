"""Datasource clients: who answers a metric strategy's queries, chosen as upstream chooses.

Each served datasource (``placement/actionplans/datasources.py`` declares them)
has its client here, built from the configuration for one audit run.
:func:`measurer` is what the audit's planners (``POST /v1/audits``, the audit
runner) pass down to the object layer: given a strategy and its queries, it
tries the strategy's datasources in order (``[watcher_strategies.<name>]`` or
``[watcher_datasources] datasources``), passing over those not served here,
those missing a metric, and those not configured or not answering, and lets
the first that answers read every query. None answering raises
:class:`~placement.actionplans.errors.NoDatasource`, listing why each was
passed over: the audit is stored FAILED with that message (unless none is
configured and the strategy can do without: ``NoDatasourceConfigured``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from oslo_config import cfg

from placement import actionplan_opts
from placement.actionplans import datasources
from placement.actionplans.errors import NoDatasource, NoDatasourceConfigured
from placement.actionplans.measured import Measurements, Query
from placement.actionplans.requirements import DatasourceState
from placement.datasources import http
from placement.datasources.prometheus import Prometheus

#: Each served datasource's client, built from the configuration (None: not configured).
_CLIENTS: dict[str, Callable[[cfg.ConfigOpts], datasources.Datasource | None]] = {
    datasources.PROMETHEUS.name: Prometheus.from_conf,
}


def choose(conf: cfg.ConfigOpts, strategy: str, metrics: set[str]) -> datasources.Datasource:
    """The first of ``strategy``'s datasources answering ``metrics`` that is reachable.

    NoDatasource, listing why each one was passed over, when none is; its subclass
    NoDatasourceConfigured when none of them is even configured (listed, served here
    and given its options), which a strategy that can do without measurements
    tells apart from a configured datasource that does not answer.
    """
    names = actionplan_opts.datasource_names(conf, strategy)
    chosen, reasons = datasources.candidates(names, metrics)
    configured = False
    for declaration in chosen:
        client = _CLIENTS[declaration.name](conf)
        if client is None:
            reasons.append(f"{declaration.name}: not configured (no [prometheus_client] host)")
            continue
        configured = True
        why = client.check_availability()
        if why is None:
            return client
        client.close()
        reasons.append(f"{declaration.name}: {why}")
    raise (NoDatasource if configured else NoDatasourceConfigured)(strategy, reasons)


def measure(conf: cfg.ConfigOpts, strategy: str, queries: tuple[Query, ...]) -> Measurements:
    """The readings of ``queries`` from ``strategy``'s datasource (NoDatasource: none answers)."""
    client = choose(conf, strategy, {query.metric for query in queries})
    try:
        return client.read(queries)
    finally:
        client.close()


def measurer(conf: cfg.ConfigOpts) -> datasources.Measure:
    """:func:`measure` on ``conf``, as the object layer takes it."""
    return functools.partial(measure, conf)


def state(conf: cfg.ConfigOpts, strategy: str) -> DatasourceState:
    """``strategy state``'s datasource for a strategy that measures: the one chosen for
    the metrics it may read and, per meter, whether Prometheus holds its series
    (upstream's ``{<meter>: available}``), or why none answers."""
    try:
        client = choose(conf, strategy, set(datasources.PROMETHEUS.meters))
    except NoDatasource as error:
        return DatasourceState(str(error), configured=not isinstance(error, NoDatasourceConfigured))
    name = client.declaration.name
    try:
        held = client.list_metrics()
    except (http.Unreachable, http.Refused) as error:
        return DatasourceState(f"{name}: not available ({error})")
    finally:
        client.close()
    metrics = [
        {meter: "available" if meter in held else "not available"}
        for meter in client.declaration.meters.values()
    ]
    return DatasourceState(f"{name}: available", metrics)
