"""The test harness itself: a private Prometheus, and the pusher the plugin runs as promtool."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests import prometheus as prom
from tests import promtool_push

pytestmark = pytest.mark.skipif(not prom.available(), reason="Debian's prometheus is not installed")


def _payload(now_ms: int) -> str:
    """Exposition text as watcher-tempest-plugin writes it: a TYPE line, quoted
    label names, ten samples 30 s apart ending 30 s ago."""
    lines = ["# TYPE ceilometer_memory_usage gauge"]
    for k in range(1, 11):
        ts = now_ms - 300_000 + (k - 1) * 30_000
        lines.append(
            f'ceilometer_memory_usage{{"resource"="uuid-1","orig_timestamp"="{now_ms}"}} 409 {ts}'
        )
    return "\n".join(lines) + "\n"


def test_started_with_labelled_targets_listed_though_down() -> None:
    targets = [prom.Target("127.0.0.1:9", {"fqdn": "compute1.example.com"})]
    with prom.prometheus(targets) as server:
        active = server.get("/api/v1/targets?state=active")["data"]["activeTargets"]
        assert [t["labels"]["fqdn"] for t in active] == ["compute1.example.com"]


def test_pushed_series_read_back_with_job_promtool() -> None:
    now_ms = int(time.time() * 1000)
    with prom.prometheus() as server:
        done = server.push(_payload(now_ms))
        assert (done.returncode, done.stderr) == (0, "")
        assert "SUCCESS: metrics pushed to remote write." in done.stdout
        [series] = server.query('ceilometer_memory_usage{resource="uuid-1"}')
        assert series["metric"]["job"] == "promtool"
        assert series["metric"]["orig_timestamp"] == str(now_ms)
        assert float(series["value"][1]) == 409
        [count] = server.query('count_over_time(ceilometer_memory_usage{resource="uuid-1"}[10m])')
        assert float(count["value"][1]) == 10


def test_delete_series_removes_what_was_pushed() -> None:
    with prom.prometheus() as server:
        server.push(_payload(int(time.time() * 1000)))
        server.delete_series('{job="promtool"}')
        assert server.query("ceilometer_memory_usage") == []


def test_refused_push_fails_with_message_on_stderr() -> None:
    """A sample older than the head accepts is refused: exit 1 and the reason."""
    with prom.prometheus() as server:
        server.push(_payload(int(time.time() * 1000)))
        done = server.push('up{a="b"} 1 1000\n')
        assert done.returncode == 1
        assert "remote write refused" in done.stderr
        assert "SUCCESS" not in done.stdout


def test_unreachable_url_fails() -> None:
    done = subprocess.run(
        [sys.executable, prom.PROMTOOL_PUSH, "push", "metrics", "http://127.0.0.1:9/api/v1/write"],
        input="up 1\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.startswith("error:")


def test_other_commands_are_refused() -> None:
    assert promtool_push.main(["query", "instant", "x"]) == 2


def test_parses_bare_and_quoted_names_escapes_and_job() -> None:
    labels, value, ts = promtool_push.parse_line('m{a="x\\"y",job="j"} 1.5e3', 7)
    assert (labels, value, ts) == ({"__name__": "m", "a": 'x"y', "job": "j"}, 1500.0, 7)
    assert promtool_push.with_job(labels)["exported_job"] == "j"
    assert promtool_push.parse_line("m 2 5", 7) == ({"__name__": "m"}, 2.0, 5)
    with pytest.raises(promtool_push.ParseError):
        promtool_push.parse_line('m{"a" 1} 2', 7)


def test_snappy_block_of_long_literals() -> None:
    """Literal tags for short, one-byte and two-byte lengths, and 64 KiB chunks."""
    data = bytes(range(256)) * 600
    block = promtool_push.snappy_block(data)
    assert block[:3] == promtool_push._varint(len(data))
    assert len(block) == len(data) + 3 + 3 * 3  # three chunks, each a 3-byte tag
    assert promtool_push.snappy_block(b"abc") == b"\x03\x08abc"
    assert promtool_push.snappy_block(b"x" * 100)[:3] == b"\x64\xf0\x63"


#: The plugin's own generator, run in its venv: the exposition text its scenarios push.
_PLUGIN_PAYLOAD = """
from watcher_tempest_plugin.tests.scenario.base import BaseInfraOptimScenarioTest as T
generate = T._generate_prometheus_metrics
print(generate(None, "ceilometer_cpu", labels={"resource": "u-1"}, inc_factor=8e8), end="")
print(generate(None, "ceilometer_memory_usage", metric_type="gauge",
               labels={"resource": "u-1"}, start_value=1638, inc_factor=0), end="")
"""


def test_the_plugins_own_payload_pushed_with_the_plugins_python() -> None:
    """What the scenarios run: the plugin's text, the pusher under another venv's Python."""
    from tests.watcher_tempest.pluginenv import plugin_venv

    python = str(plugin_venv() / "bin" / "python")
    text = subprocess.run(
        [python, "-c", _PLUGIN_PAYLOAD], capture_output=True, text=True, check=True
    ).stdout
    assert '{"resource"="u-1","orig_timestamp"="' in text
    with prom.prometheus() as server:
        done = subprocess.run(
            [python, prom.PROMTOOL_PUSH, "push", "metrics", server.write_url],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode, done.stderr) == (0, "")
        assert "SUCCESS" in done.stdout
        [ram] = server.query("ceilometer_memory_usage{resource='u-1',job='promtool'}")
        assert float(ram["value"][1]) == 1638
        [cpu] = server.query("rate(ceilometer_cpu{resource='u-1'}[300s]) / 1e9")
        assert 0.6 <= float(cpu["value"][1]) <= 0.8
