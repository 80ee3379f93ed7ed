"""Concurrent claims against a running Placement: throughput, conflicts, overcommit.

C client threads each repeat what a scheduler does: ask for a place to put a
new instance, then claim it with ``PUT /allocations/{new consumer}`` and
``consumer_generation: null``, asking again whenever the claim is refused
(409, either "concurrent update" or "no room any more"), until the run's
duration is over or no candidate is left. Candidates come from

* ``--source providers`` (default): ``GET /resource_providers?resources=...``,
  a random provider of the answer (works on any server);
* ``--source candidates``: ``GET /allocation_candidates?...&limit=5``, a random
  allocation request of the answer.

Both are scoped with ``member_of`` to an aggregate holding only the providers
this run created (``--providers`` of them, each with ``--inventory``), so
the tool can share a server with other users. At the end it reports
claims/s, the conflict rate (409 concurrent_update per claim attempt), 5xx
count and latencies, and verifies, provider by provider, that usage is
within capacity and equals the sum of the successful claims.

It talks HTTP only, so it can target any Placement, ours or upstream::

    python benchmarks/claims.py --url http://127.0.0.1:8778 --clients 8 --duration 20
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

WRITE_VERSION = "1.28"


class Placement:
    """Minimal HTTP client: a fresh connection per request (works with any worker type)."""

    def __init__(self, url: str, token: str, roles: str | None) -> None:
        parts = urlsplit(url)
        self.scheme, self.netloc = parts.scheme, parts.netloc
        self.prefix = parts.path.rstrip("/")
        self.headers = {"x-auth-token": token, "accept": "application/json"}
        if roles:
            self.headers["x-roles"] = roles

    def call(
        self, method: str, path: str, body: Any = None, version: str = WRITE_VERSION
    ) -> tuple[int, Any]:
        headers = dict(self.headers, **{"openstack-api-version": f"placement {version}"})
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["content-type"] = "application/json"
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        conn = cls(self.netloc, timeout=120)
        try:
            conn.request(method, self.prefix + path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        try:
            return resp.status, (json.loads(raw) if raw else None)
        except ValueError:
            return resp.status, raw.decode("utf-8", "replace")

    def ok(self, method: str, path: str, body: Any = None, version: str = WRITE_VERSION) -> Any:
        status, answer = self.call(method, path, body, version)
        if status >= 400:
            raise RuntimeError(f"{method} {path} -> {status}: {answer}")
        return answer


@dataclass
class Tally:
    """What the clients did; shared by all threads under a lock."""

    claims: int = 0
    conflicts: int = 0
    refusals: int = 0
    server_errors: list[str] = field(default_factory=list)
    attempts: int = 0
    latencies: list[float] = field(default_factory=list)
    claimed: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def parse_amounts(text: str, sep: str) -> dict[str, int]:
    """``"VCPU:1,MEMORY_MB:128"`` (``sep`` ``:``) or ``VCPU=64,...`` (``=``)."""
    pairs = (item.split(sep, 1) for item in text.split(",") if item)
    return {name.strip(): int(value) for name, value in pairs}


def set_up(api: Placement, count: int, inventory: dict[str, int], name: str) -> tuple[str, list]:
    """``count`` providers with ``inventory`` in a new aggregate; (aggregate, uuids)."""
    aggregate = str(uuid.uuid4())
    providers = []
    for index in range(count):
        rp = str(uuid.uuid4())
        api.ok("POST", "/resource_providers", {"name": f"{name}-{index}", "uuid": rp}, "1.20")
        api.ok(
            "PUT",
            f"/resource_providers/{rp}/inventories",
            {
                "resource_provider_generation": 0,
                "inventories": {
                    rc: {"total": total, "max_unit": total} for rc, total in inventory.items()
                },
            },
            "1.20",
        )
        api.ok(
            "PUT",
            f"/resource_providers/{rp}/aggregates",
            {"aggregates": [aggregate], "resource_provider_generation": 1},
            "1.20",
        )
        providers.append(rp)
    return aggregate, providers


def candidates(
    api: Placement, source: str, resources: dict[str, int], aggregate: str
) -> list[dict[str, dict[str, int]]]:
    """Where a claim could go now: a list of ``{provider: {class: amount}}``."""
    wanted = ",".join(f"{rc}:{n}" for rc, n in resources.items())
    if source == "candidates":
        query = urlencode({"resources": wanted, "member_of": aggregate, "limit": 5})
        answer = api.ok("GET", f"/allocation_candidates?{query}", version="1.21")
        return [
            {rp: share["resources"] for rp, share in request["allocations"].items()}
            for request in answer["allocation_requests"]
        ]
    query = urlencode({"resources": wanted, "member_of": aggregate})
    answer = api.ok("GET", f"/resource_providers?{query}", version="1.4")
    return [{rp["uuid"]: dict(resources)} for rp in answer["resource_providers"]]


def client(
    api: Placement,
    args: argparse.Namespace,
    aggregate: str,
    tally: Tally,
    stop_at: float,
    seed: int,
) -> None:
    rng = random.Random(seed)
    while time.monotonic() < stop_at:
        options = candidates(api, args.source, args.resources, aggregate)
        if not options:
            return  # everything is full
        choice = rng.choice(options)
        consumer = str(uuid.uuid4())
        started = time.monotonic()
        status, answer = api.call(
            "PUT",
            f"/allocations/{consumer}",
            {
                "allocations": {rp: {"resources": r} for rp, r in choice.items()},
                "project_id": args.project,
                "user_id": "claims-benchmark",
                "consumer_generation": None,
            },
        )
        elapsed = time.monotonic() - started
        with tally.lock:
            tally.attempts += 1
            tally.latencies.append(elapsed)
            if status == 204:
                tally.claims += 1
                tally.claimed[consumer] = choice
            elif status >= 500:
                tally.server_errors.append(f"{status}: {str(answer)[:300]}")
            elif status == 409 and _code(answer) == "placement.concurrent_update":
                tally.conflicts += 1
            elif status == 409:
                tally.refusals += 1
            else:
                raise RuntimeError(f"claim answered {status}: {answer}")


def _code(answer: Any) -> str | None:
    try:
        return answer["errors"][0].get("code")
    except (TypeError, KeyError, IndexError):
        return None


def verify(api: Placement, providers: list[str], tally: Tally) -> list[str]:
    """Usage ≤ capacity and usage == successful claims, for every provider."""
    problems = []
    for rp in providers:
        inventories = api.ok("GET", f"/resource_providers/{rp}/inventories")["inventories"]
        usages = api.ok("GET", f"/resource_providers/{rp}/usages")["usages"]
        for rc, inv in inventories.items():
            capacity = (inv["total"] - inv["reserved"]) * inv["allocation_ratio"]
            claimed = sum(c.get(rp, {}).get(rc, 0) for c in tally.claimed.values())
            if usages.get(rc, 0) > capacity:
                problems.append(f"OVERCOMMIT {rp} {rc}: used {usages[rc]} > {capacity}")
            if usages.get(rc, 0) != claimed:
                problems.append(f"{rp} {rc}: used {usages.get(rc, 0)} but claims sum {claimed}")
    return problems


def clean_up(api: Placement, providers: list[str], tally: Tally) -> None:
    for consumer in tally.claimed:
        api.call("DELETE", f"/allocations/{consumer}")
    for rp in providers:
        api.call("DELETE", f"/resource_providers/{rp}")


def report(args: argparse.Namespace, tally: Tally, wall: float, problems: list[str]) -> dict:
    latencies = sorted(tally.latencies) or [0.0]
    summary = {
        "url": args.url,
        "source": args.source,
        "clients": args.clients,
        "providers": args.providers,
        "wall_s": round(wall, 2),
        "claims": tally.claims,
        "claims_per_s": round(tally.claims / wall, 1) if wall else 0,
        "attempts": tally.attempts,
        "conflicts": tally.conflicts,
        "conflict_rate": round(tally.conflicts / tally.attempts, 3) if tally.attempts else 0,
        "capacity_refusals": tally.refusals,
        "server_errors": len(tally.server_errors),
        "claim_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "claim_p95_ms": round(latencies[max(0, int(len(latencies) * 0.95) - 1)] * 1000, 1),
        "claim_p99_ms": round(latencies[max(0, int(len(latencies) * 0.99) - 1)] * 1000, 1),
        "verified": not problems,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>18}: {value}")
        for line in problems + tally.server_errors[:10]:
            print(f"  ! {line}")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="API root, e.g. http://127.0.0.1:8778")
    parser.add_argument("--token", default="admin", help="x-auth-token (noauth2: admin)")
    parser.add_argument("--roles", default=None, help="x-roles header, if needed")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds to run at most")
    parser.add_argument("--providers", type=int, default=4, help="providers to create")
    parser.add_argument(
        "--inventory",
        type=lambda t: parse_amounts(t, "="),
        default=parse_amounts("VCPU=100000,MEMORY_MB=10000000", "="),
        help="each provider's inventory, e.g. VCPU=64,MEMORY_MB=65536",
    )
    parser.add_argument(
        "--resources",
        type=lambda t: parse_amounts(t, ":"),
        default=parse_amounts("VCPU:1,MEMORY_MB:128", ":"),
        help="one claim, e.g. VCPU:1,MEMORY_MB:128",
    )
    parser.add_argument(
        "--source",
        choices=("providers", "candidates"),
        default="providers",
        help="GET /resource_providers or GET /allocation_candidates?limit=5",
    )
    parser.add_argument("--project", default="claims-benchmark")
    parser.add_argument("--keep", action="store_true", help="leave providers and claims")
    parser.add_argument("--json", action="store_true", help="one JSON line as the report")
    args = parser.parse_args(argv)

    api = Placement(args.url, args.token, args.roles)
    aggregate, providers = set_up(
        api, args.providers, args.inventory, f"claims-{uuid.uuid4().hex[:8]}"
    )
    tally = Tally()
    started = time.monotonic()
    stop_at = started + args.duration
    with ThreadPoolExecutor(args.clients) as pool:
        for future in [
            pool.submit(client, api, args, aggregate, tally, stop_at, seed)
            for seed in range(args.clients)
        ]:
            future.result()
    wall = time.monotonic() - started
    problems = verify(api, providers, tally)
    summary = report(args, tally, wall, problems)
    if not args.keep:
        clean_up(api, providers, tally)
    return 0 if summary["verified"] and not tally.server_errors else 1


if __name__ == "__main__":
    sys.exit(main())
