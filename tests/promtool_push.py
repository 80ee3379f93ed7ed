#!/usr/bin/env python3
"""``promtool push metrics <URL>`` for a Prometheus whose promtool has no ``push``.

watcher-tempest-plugin writes the series its scenarios need by running
``<[optimize] prometheus_promtool> push metrics <remote-write URL>`` with
Prometheus exposition text on stdin, and requires ``SUCCESS`` on stdout and
nothing on stderr. Debian's promtool 2.42 predates that command, so this
script does the same job: every sample line becomes a remote-write series
with its labels plus ``job="promtool"`` (a payload ``job`` becomes
``exported_job``) and the line's timestamp (ms; "now" when absent), sent as
a protobuf ``prometheus.WriteRequest`` in one snappy block.

Standard library only, and encoded by hand: the plugin may run it with
another virtual environment's Python. The snappy block is literal-only (no
compression), which the format allows; the protobuf messages are four
small ones (WriteRequest, TimeSeries, Label, Sample).
"""

from __future__ import annotations

import struct
import sys
import time
import urllib.error
import urllib.request

USAGE = "usage: promtool_push.py push metrics <remote-write URL>"
JOB = "promtool"


class ParseError(ValueError):
    """A line of the exposition text this pusher cannot read."""


# -- the exposition text ------------------------------------------------------


def _quoted(text: str, pos: int) -> tuple[str, int]:
    """The double-quoted string starting at ``text[pos]`` and the index after it."""
    out: list[str] = []
    pos += 1
    escapes = {"\\": "\\", '"': '"', "n": "\n"}
    while pos < len(text):
        char = text[pos]
        if char == '"':
            return "".join(out), pos + 1
        if char == "\\" and pos + 1 < len(text):
            pos += 1
            out.append(escapes.get(text[pos], "\\" + text[pos]))
        else:
            out.append(char)
        pos += 1
    raise ParseError("unterminated string")


def _name(text: str, pos: int) -> tuple[str, int]:
    """A label name, bare or double-quoted, at ``text[pos]``."""
    if text[pos] == '"':
        return _quoted(text, pos)
    end = pos
    while end < len(text) and (text[end].isalnum() or text[end] in "_:"):
        end += 1
    if end == pos:
        raise ParseError(f"label name expected at {text[pos:]!r}")
    return text[pos:end], end


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _labels(text: str, pos: int) -> tuple[dict[str, str], int]:
    """The ``{...}`` label set at ``text[pos]`` and the index after it."""
    labels: dict[str, str] = {}
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        name, pos = _name(text, pos)
        pos = _skip(text, pos)
        if text[pos] != "=":
            raise ParseError(f"'=' expected after label {name!r}")
        pos = _skip(text, pos + 1)
        if text[pos] != '"':
            raise ParseError(f"quoted value expected for label {name!r}")
        labels[name], pos = _quoted(text, pos)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return labels, pos + 1


def parse_line(line: str, now_ms: int) -> tuple[dict[str, str], float, int]:
    """One sample line: its labels (the name as ``__name__``), value and timestamp."""
    end = 0
    while end < len(line) and line[end] not in "{ \t":
        end += 1
    labels = {"__name__": line[:end]}
    if end < len(line) and line[end] == "{":
        more, end = _labels(line, end)
        labels.update(more)
    fields = line[end:].split()
    if not line[:end] or len(fields) not in (1, 2):
        raise ParseError(f"cannot read sample line {line!r}")
    value = float(fields[0])
    timestamp = int(fields[1]) if len(fields) == 2 else now_ms
    return labels, value, timestamp


def with_job(labels: dict[str, str]) -> dict[str, str]:
    """The labels promtool sends: ``job="promtool"``, a payload's own job renamed."""
    out = dict(labels)
    if "job" in out:
        out["exported_job"] = out.pop("job")
    out["job"] = JOB
    return out


def series(text: str, now_ms: int) -> dict[tuple[tuple[str, str], ...], list[tuple[float, int]]]:
    """Every sample of the text, grouped by series (sorted labels)."""
    found: dict[tuple[tuple[str, str], ...], list[tuple[float, int]]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        labels, value, timestamp = parse_line(line, now_ms)
        key = tuple(sorted(with_job(labels).items()))
        found.setdefault(key, []).append((value, timestamp))
    return found


# -- protobuf and snappy ------------------------------------------------------


def _varint(number: int) -> bytes:
    number &= (1 << 64) - 1  # negative int64 as two's complement, as protobuf does
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _sample(value: float, timestamp: int) -> bytes:
    """``Sample {double value = 1; int64 timestamp = 2;}``."""
    return b"\x09" + struct.pack("<d", value) + b"\x10" + _varint(timestamp)


def write_request(found: dict[tuple[tuple[str, str], ...], list[tuple[float, int]]]) -> bytes:
    """``WriteRequest {repeated TimeSeries timeseries = 1;}``, each series'
    ``labels = 1`` (``Label {name = 1; value = 2;}``) and ``samples = 2``."""
    out = bytearray()
    for labels, samples in found.items():
        body = bytearray()
        for name, value in labels:
            body += _field(1, _field(1, name.encode()) + _field(2, value.encode()))
        for value, timestamp in sorted(samples, key=lambda s: s[1]):
            body += _field(2, _sample(value, timestamp))
        out += _field(1, bytes(body))
    return bytes(out)


def snappy_block(data: bytes) -> bytes:
    """A snappy block of literals only: the length, then chunks of at most 64 KiB."""
    out = bytearray(_varint(len(data)))
    for start in range(0, len(data), 65536):
        chunk = data[start : start + 65536]
        size = len(chunk) - 1
        if size < 60:
            out.append(size << 2)
        elif size < 256:
            out += bytes((60 << 2, size))
        else:
            out += bytes((61 << 2,)) + struct.pack("<H", size)
        out += chunk
    return bytes(out)


# -- the command --------------------------------------------------------------


def post(url: str, body: bytes) -> None:
    """POST the compressed request as promtool does; raise on any refusal."""
    request = urllib.request.Request(
        url,
        data=snappy_block(body),
        method="POST",
        headers={
            "Content-Encoding": "snappy",
            "Content-Type": "application/x-protobuf",
            "User-Agent": "promtool_push",
            "X-Prometheus-Remote-Write-Version": "0.1.0",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[:2] != ["push", "metrics"]:
        print(USAGE, file=sys.stderr)
        return 2
    now_ms = int(time.time() * 1000)
    try:
        body = write_request(series(sys.stdin.read(), now_ms))
        post(argv[2], body)
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace").strip()
        print(f"error: remote write refused: {error.code} {detail}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("Parsing standard input")
    print("  SUCCESS: metrics pushed to remote write.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
