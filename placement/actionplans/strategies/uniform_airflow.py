"""``uniform_airflow``: upstream's airflow strategy, listed but not run here.

Upstream moves servers off hosts whose IPMI airflow reaches
``threshold_airflow``, reading inlet temperature and power too; no datasource
here answers those metrics (see ``cannot_run.py``).
"""

from __future__ import annotations

from placement.actionplans.measured import HOST_AIRFLOW, HOST_INLET_TEMP, HOST_POWER
from placement.actionplans.strategies.cannot_run import declare, number, reads_unanswered

STRATEGY = declare(
    "uniform_airflow",
    "Uniform airflow migration strategy",
    "airflow_optimization",
    {
        "properties": {
            "threshold_airflow": number("airflow threshold for migration, Unit is 0.1CFM", 400.0),
            "threshold_inlet_t": number("inlet temperature threshold for migration decision", 28.0),
            "threshold_power": number("system power threshold for migration decision", 350.0),
            "period": number("aggregate time period of ceilometer", 300),
            "granularity": number(
                "The time between two measures in an aggregated timeseries of a metric.", 300
            ),
        }
    },
    reads_unanswered(HOST_AIRFLOW, HOST_INLET_TEMP, HOST_POWER),
)
