"""A private Prometheus holding the plugin's series, for the datasource tests.

Three compute hosts' scrape targets (one labelled by FQDN, one by short name,
one whose two CPUs differ) and their series, and one instance's, pushed as
watcher-tempest-plugin pushes them, right after start-up.
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
    hosts = [LOADED, IDLE, MIXED]
    targets = [prom.Target(f"127.0.0.1:{9100 + i}", {"fqdn": h}) for i, h in enumerate(hosts)]
    with prom.prometheus(targets) as running:
        now_ms = int(time.time() * 1000)
        payload = (
            prom.host_text(LOADED, 4096, now_ms, idle_slopes=[0.0, 0.0], load=0.8)
            + prom.host_text(IDLE, 4096, now_ms, idle_slopes=[1.0, 1.0], load=0.1)
            + prom.host_text(MIXED, 2048, now_ms, idle_slopes=[1.0, 0.5], load=0.1)
            + prom.instance_text(SERVER, 2048, now_ms)
        )
        done = running.push(payload)
        assert done.returncode == 0, done.stderr
        yield running
