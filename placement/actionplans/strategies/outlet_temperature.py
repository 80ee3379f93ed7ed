"""``outlet_temperature``: upstream's thermal strategy, listed but not run here.

Upstream moves one server off a host whose IPMI outlet temperature reaches
``threshold``; no datasource here answers ``host_outlet_temp`` (see
``cannot_run.py``).
"""

from __future__ import annotations

from placement.actionplans.measured import HOST_OUTLET_TEMP
from placement.actionplans.strategies.cannot_run import declare, number, reads_unanswered

STRATEGY = declare(
    "outlet_temperature",
    "Outlet temperature based strategy",
    "thermal_optimization",
    {
        "properties": {
            "threshold": number("temperature threshold for migration", 35.0),
            "period": number("The time interval in seconds for getting statistic aggregation", 30),
            "granularity": number(
                "The time between two measures in an aggregated timeseries of a metric.", 300
            ),
        }
    },
    reads_unanswered(HOST_OUTLET_TEMP),
)
