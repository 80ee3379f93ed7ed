"""The retry policy: a time budget with jittered exponential back-off."""

from __future__ import annotations

import time

from placement import conf
from placement.db import retry


def test_pauses_grow_to_the_cap_with_jitter():
    budget = retry.RetryPolicy(max_time=60, interval=0.01, max_interval=0.08).budget()
    pauses = [budget.next_pause() for _ in range(200)]
    ceilings = [min(0.08, 0.01 * 2**n) for n in range(200)]
    assert all(p is not None and 0 <= p <= c for p, c in zip(pauses, ceilings, strict=True))
    assert len({round(p, 6) for p in pauses[10:] if p is not None}) > 100  # jittered, not in step
    assert budget.attempts == 201


def test_the_budget_is_time_not_attempts():
    budget = retry.RetryPolicy(max_time=0.05, interval=1, max_interval=1).budget()
    pause = budget.next_pause()
    assert pause is not None and pause <= 0.05  # never past the deadline
    time.sleep(0.06)
    assert budget.next_pause() is None


def test_the_options_defaults_are_the_policys():
    opts = conf.load([], default_config_files=[]).placement_database
    assert (
        retry.RetryPolicy(
            max_time=opts.db_max_retry_time,
            interval=opts.db_retry_interval,
            max_interval=opts.db_max_retry_interval,
        )
        == retry.RetryPolicy()
    )
    assert opts.mysql_wsrep_sync_wait is None
