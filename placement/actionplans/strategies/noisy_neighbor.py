"""``noisy_neighbor``: upstream's L3-cache strategy, listed but not run here.

Upstream moves a server whose L3 cache use grows past ``cache_threshold`` away
from a higher-priority one whose use drops; no datasource here answers
``instance_l3_cache_usage`` (see ``cannot_run.py``).
"""

from __future__ import annotations

from placement.actionplans.measured import INSTANCE_L3_CACHE_USAGE
from placement.actionplans.strategies.cannot_run import declare, number, reads_unanswered

STRATEGY = declare(
    "noisy_neighbor",
    "Noisy Neighbor",
    "noisy_neighbor",
    {
        "properties": {
            "cache_threshold": number("Performance drop in L3_cache threshold for migration", 35.0),
            "period": number("Aggregate time period of ceilometer and gnocchi", 100.0),
        }
    },
    reads_unanswered(INSTANCE_L3_CACHE_USAGE),
)
