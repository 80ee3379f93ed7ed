"""How long, and how often, a transaction the database aborted is run again.

A retry policy is a *time* budget, not a number of attempts. On one server a
deadlock is rare and a second attempt nearly always succeeds; on a Galera
cluster every writer node certifies every write-set, and under contention a
transaction can lose certification (error 1213, at ``COMMIT`` or in the
middle of a statement) many times in a row. Five attempts with half a second
of back-off were measured to run out under 40 clients on three nodes; a
budget of seconds with jittered exponential back-off does not, and it also
covers a proxy failing over to another node (the connection cut, a fresh one
opened on the next attempt), which takes as long as the proxy's health check.

The back-off is "full jitter": each pause is drawn uniformly between zero and
``interval * 2**n`` (capped at ``max_interval``), so clients that collided
once spread out instead of colliding again in step.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

#: ``[placement_database] db_max_retry_time``'s default: seconds a transaction
#: (or a read request) may keep being retried.
DEFAULT_MAX_TIME = 20.0

#: ``[placement_database] db_retry_interval``'s default: the first pause's ceiling.
DEFAULT_INTERVAL = 0.02

#: ``[placement_database] db_max_retry_interval``'s default: no pause is longer.
DEFAULT_MAX_INTERVAL = 1.0


@dataclass(frozen=True)
class RetryPolicy:
    """The options of ``[placement_database]`` that bound retries."""

    max_time: float = DEFAULT_MAX_TIME
    interval: float = DEFAULT_INTERVAL
    max_interval: float = DEFAULT_MAX_INTERVAL

    def budget(self) -> Budget:
        """A budget starting now, for one call (a transaction, a claim, a read request)."""
        return Budget(self)


class Budget:
    """What is left of one call's retry time, and the next pause."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._deadline = time.monotonic() + policy.max_time
        self._pauses = 0

    def next_pause(self) -> float | None:
        """Seconds to wait before the next attempt; None when the time is spent.

        The pause never runs past the deadline, so an attempt always starts
        within the budget.
        """
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            return None
        ceiling = min(self._policy.max_interval, self._policy.interval * 2**self._pauses)
        self._pauses += 1
        return min(remaining, random.uniform(0, ceiling))

    @property
    def attempts(self) -> int:
        """Attempts made so far (for logs): the first plus one per pause handed out."""
        return self._pauses + 1
