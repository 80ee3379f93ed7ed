"""``storage_capacity_balance``: upstream's Cinder pool balancing, listed but not run here.

Upstream migrates or retypes volumes off pools used beyond
``volume_threshold`` %; this service has no Cinder (see ``cannot_run.py``).
"""

from __future__ import annotations

from placement.actionplans.strategies.cannot_run import NEEDS_CINDER, declare, number

STRATEGY = declare(
    "storage_capacity_balance",
    "Storage Capacity Balance Strategy",
    "workload_balancing",
    {"properties": {"volume_threshold": number("volume threshold for capacity balance", 80.0)}},
    NEEDS_CINDER,
)
