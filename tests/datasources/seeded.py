"""A private Prometheus holding the plugin's series, for the datasource tests.

Three compute hosts' scrape targets (one labelled by FQDN, one by short name,
one whose two CPUs differ) and their series, and one instance's, pushed as
watcher-tempest-plugin pushes them. The series age as the plugin's do (a rate
read ``d`` seconds after the push is the slope times ``(285 - d) / 300``, and the
samples are of no use after about four minutes), so each test module gets them
pushed afresh (:func:`reseed`), and can tell how old they are.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from tests import prometheus as prom

LOADED = "compute1.example.com"
IDLE = "compute2"
MIXED = "compute3"
SERVER = "9a0c4b51-6d6b-4c43-9d4c-111111111111"
ABSENT = "9a0c4b51-6d6b-4c43-9d4c-222222222222"


@contextlib.contextmanager
def seeded() -> Iterator[prom.Prometheus]:
    """The Prometheus, its hosts' targets configured, no series yet."""
    hosts = [LOADED, IDLE, MIXED]
    targets = [prom.Target(f"127.0.0.1:{9100 + i}", {"fqdn": h}) for i, h in enumerate(hosts)]
    with prom.prometheus(targets) as running:
        yield running


def reseed(running: prom.Prometheus) -> float:
    """Every series deleted and the seeds pushed again; when (``time.time()``)."""
    running.delete_series('{__name__=~".+"}')
    pushed_at = time.time()
    now_ms = int(pushed_at * 1000)
    payload = (
        prom.host_text(LOADED, 4096, now_ms, idle_slopes=[0.0, 0.0], load=0.8)
        + prom.host_text(IDLE, 4096, now_ms, idle_slopes=[1.0, 1.0], load=0.1)
        + prom.host_text(MIXED, 2048, now_ms, idle_slopes=[1.0, 0.5], load=0.1)
        + prom.instance_text(SERVER, 2048, now_ms)
    )
    done = running.push(payload)
    assert done.returncode == 0, done.stderr
    return pushed_at


def extrapolated(slope: float, pushed_at: float) -> float:
    """What a 300 s ``rate()`` reads now of a series of ``slope`` pushed at
    ``pushed_at`` (WATCHER_METRICS.md §4.2): once the newest sample (30 s old at the
    push) is more than 1.1 steps old, 3 s after the push, and up to about 240 s
    after it, what extrapolating half a step at each edge gives. Waits out the
    first 4 s (before, rate() reads the slope itself)."""
    time.sleep(max(0.0, pushed_at + 4 - time.time()))
    return slope * (285 - (time.time() - pushed_at)) / 300
