"""Malformed requests for every route, the data they are aimed at, and a
dump of the database to prove they changed nothing.

:func:`seed` writes one of everything through the API (a provider with
inventory, a trait, an aggregate and an allocation; a custom class; an
audit with its plan and action). :func:`probes` then makes, for every route
and method of ``placement.wsgi.routes``, requests none of which may fail
with a 5xx or change anything (a read whose route ignores the bad part
answers 200): path fields holding NUL bytes, surrogates' UTF-8 or huge
text; bodies with ``NaN``/``Infinity``, deep nesting, lists of 100,000
integers or 50,000 traits, and every string, key and number of a valid body
in turn replaced by something no database can store; query strings with NUL
bytes, integers beyond 64 bits or of 5,000 digits, thousands of parameters;
headers as long as gunicorn lets through.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy

from placement.db import actionplan_tables, tables
from placement.wsgi import routes
from tests import rig

#: Text no database stores: a NUL, lone surrogates.
BAD_TEXT = ("\u0000", "x\u0000y", "\ud800", "\udfff\ud800")
#: JSON numbers a database cannot store, as JSON text.
BAD_NUMBERS = ("NaN", "Infinity", "-Infinity", "1e400", "-1e400")
#: An integer no JSON parser here converts (more than 4,300 digits).
BAD_INTEGERS = ("9" * 5000,)
#: Path segments: a NUL, a surrogate's UTF-8, an overlong field.
BAD_SEGMENTS = ("%00", "CUSTOM_%00", "%ED%A0%80", "%ED%BF%BF%ED%A0%80", "A" * 3000)


@dataclass(frozen=True)
class Probe:
    """One malformed request: ``path`` is already percent-encoded."""

    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Seeded:
    """What :func:`seed` made, to aim probes at existing things."""

    provider: str
    generation: int
    consumer: str
    aggregate: str
    trait: str
    resource_class: str
    audit: str
    plan: str
    action: str


def seed(app: Callable) -> Seeded:
    """One of everything, written through the API of ``app``."""
    provider, consumer, aggregate = (str(uuid.uuid4()) for _ in range(3))

    def ok(method: str, path: str, body: Any = None) -> Any:
        status, data = rig.call(app, method, path, body)
        assert status < 400, (method, path, status, data)
        return data

    ok("POST", "/resource_providers", {"name": "bad-input-target", "uuid": provider})
    ok("PUT", "/traits/CUSTOM_BAD_INPUT")
    ok("PUT", "/resource_classes/CUSTOM_BAD_INPUT")
    ok(
        "PUT",
        f"/resource_providers/{provider}/inventories",
        {
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 8}, "CUSTOM_BAD_INPUT": {"total": 4}},
        },
    )
    ok(
        "PUT",
        f"/resource_providers/{provider}/traits",
        {"traits": ["CUSTOM_BAD_INPUT"], "resource_provider_generation": 1},
    )
    ok(
        "PUT",
        f"/resource_providers/{provider}/aggregates",
        {"aggregates": [aggregate], "resource_provider_generation": 2},
    )
    ok(
        "PUT",
        f"/allocations/{consumer}",
        {
            "allocations": {provider: {"resources": {"VCPU": 2}}},
            "project_id": "bad-input-project",
            "user_id": "bad-input-user",
            "consumer_generation": None,
            "consumer_type": "INSTANCE",
        },
    )
    audit = ok("POST", "/v1/audits", {"audit_type": "ONESHOT", "goal": "dummy"})["uuid"]
    plan = ok("GET", f"/v1/action_plans?audit_uuid={audit}")["action_plans"][0]["uuid"]
    action = ok("GET", f"/v1/actions?action_plan_uuid={plan}")["actions"][0]["uuid"]
    generation = ok("GET", f"/resource_providers/{provider}")["generation"]
    return Seeded(
        provider=provider,
        generation=generation,
        consumer=consumer,
        aggregate=aggregate,
        trait="CUSTOM_BAD_INPUT",
        resource_class="CUSTOM_BAD_INPUT",
        audit=audit,
        plan=plan,
        action=action,
    )


def dump(engine: sqlalchemy.Engine) -> dict[str, list[tuple]]:
    """Every row of every table, sorted: equal dumps mean nothing changed."""
    found = {}
    with engine.connect() as conn:
        for metadata in (tables.metadata, actionplan_tables.metadata):
            for table in metadata.sorted_tables:
                rows = conn.execute(sqlalchemy.select(table)).all()
                found[table.name] = sorted((tuple(row) for row in rows), key=repr)
    return found


# --- the probes -----------------------------------------------------------------

_FIELD = re.compile(r"\{(\w+)\}")


def _valid_bodies(s: Seeded) -> dict[tuple[str, str], Any]:
    """A body each route accepts (never sent as is: :func:`_spoiled` spoils it)."""
    allocation = {
        "allocations": {s.provider: {"resources": {"VCPU": 1}}},
        "project_id": "project",
        "user_id": "user",
        "consumer_generation": 1,
        "consumer_type": "INSTANCE",
    }
    inventory = {"resource_provider_generation": s.generation, "total": 8, "allocation_ratio": 1.5}
    return {
        ("POST", "/resource_classes"): {"name": "CUSTOM_NEW"},
        ("PUT", "/resource_providers/{uuid}/traits"): {
            "traits": ["CUSTOM_BAD_INPUT"],
            "resource_provider_generation": s.generation,
        },
        ("POST", "/resource_providers"): {"name": "new", "uuid": str(uuid.uuid4())},
        ("PUT", "/resource_providers/{uuid}"): {"name": "renamed"},
        ("POST", "/resource_providers/{uuid}/inventories"): {
            **inventory,
            "resource_class": "DISK_GB",
        },
        ("PUT", "/resource_providers/{uuid}/inventories"): {
            "resource_provider_generation": s.generation,
            "inventories": {"VCPU": {"total": 8, "allocation_ratio": 1.5}},
        },
        ("PUT", "/resource_providers/{uuid}/inventories/{resource_class}"): inventory,
        ("PUT", "/resource_providers/{uuid}/aggregates"): {
            "aggregates": [s.aggregate],
            "resource_provider_generation": s.generation,
        },
        ("POST", "/allocations"): {s.consumer: allocation},
        ("PUT", "/allocations/{consumer_uuid}"): allocation,
        ("POST", "/reshaper"): {
            "inventories": {
                s.provider: {
                    "resource_provider_generation": s.generation,
                    "inventories": {"VCPU": {"total": 8, "allocation_ratio": 1.5}},
                }
            },
            "allocations": {s.consumer: allocation},
        },
        ("POST", "/v1/audits"): {
            "audit_type": "ONESHOT",
            "goal": "dummy",
            "name": "spoiled",
            "parameters": {"para1": 3.5},
        },
        ("PATCH", "/v1/action_plans/{ident}"): [
            {"op": "replace", "path": "/state", "value": "PENDING"}
        ],
        ("PATCH", "/v1/actions/{ident}"): [{"op": "replace", "path": "/state", "value": "SKIPPED"}],
    }


def _spoiled(body: Any) -> Iterator[str]:
    """JSON texts of ``body`` with one string, key or number spoiled at a time."""
    for where, value in _leaves(body):
        if isinstance(value, str) or where == "key":
            for bad in BAD_TEXT:
                yield _replace(body, value, where, json.dumps(bad))
        elif isinstance(value, float):
            for bad in BAD_NUMBERS:
                yield _replace(body, value, where, bad)
        elif isinstance(value, int) and not isinstance(value, bool):
            for bad in BAD_INTEGERS + BAD_NUMBERS[:3]:
                yield _replace(body, value, where, bad)


def _leaves(body: Any, path: tuple = ()) -> Iterator[tuple[Any, Any]]:
    """``(path, value)`` of every scalar and ``("key", key)`` of every key."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield "key", key
            yield from _leaves(value, (*path, key))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            yield from _leaves(value, (*path, index))
    else:
        yield path, body


def _replace(body: Any, value: Any, where: Any, bad_json: str) -> str:
    """``body`` as JSON with the leaf at ``where`` (or the key ``value``) as ``bad_json``."""
    placeholder = f"__SPOILED_{uuid.uuid4().hex}__"
    if where == "key":
        text = json.dumps(_rename_key(body, value, placeholder))
        return text.replace(json.dumps(placeholder), bad_json, 1)
    text = json.dumps(_set(body, where, placeholder))
    return text.replace(json.dumps(placeholder), bad_json, 1)


def _rename_key(body: Any, old: str, new: str) -> Any:
    if isinstance(body, dict):
        return {(new if k == old else k): _rename_key(v, old, new) for k, v in body.items()}
    if isinstance(body, list):
        return [_rename_key(item, old, new) for item in body]
    return body


def _set(body: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    head, *rest = path
    if isinstance(body, list):
        return [
            _set(item, tuple(rest), value) if i == head else item for i, item in enumerate(body)
        ]
    return {k: (_set(v, tuple(rest), value) if k == head else v) for k, v in body.items()}


#: Bodies wrong whatever the route: not JSON we take, or nested too deep.
RAW_BODIES: tuple[bytes, ...] = (
    b"NaN",
    b"[Infinity]",
    b'{"a": -Infinity}',
    b"[" * 1000,
    b"[" * 1000 + b"]" * 1000,
    b"[" * 100_000,
    b'{"a": ' * 20_000 + b"1" + b"}" * 20_000,
    b"\xed\xa0\x80",
    json.dumps(list(range(100_000))).encode(),
    json.dumps([f"CUSTOM_T{n}" for n in range(50_000)]).encode(),
)

#: Query strings wrong for every reading route.
QUERIES: tuple[str, ...] = (
    "limit=9223372036854775808",
    "limit=" + "9" * 5000,
    "limit=-1",
    "required=%00",
    "resources=VCPU%00:1",
    "resources=VCPU:1&root_required=%00",
    "resources=VCPU:9223372036854775808",
    "resources=VCPU:" + "9" * 5000,
    "name=%00",
    "member_of=%00",
    "in_tree=%00",
    "project_id=%00",
    "user_id=%00",
    "%00=1",
    "marker=%00",
    "sort_key=%00",
    "goal=%00",
    "&".join(f"p{n}=1" for n in range(1200)),
)

#: Headers the service reads, too long; and a long one it does not read.
HEADERS: tuple[dict[str, str], ...] = (
    {"Accept": "a/b;" * 2000},
    {"Accept": "text/html, " + " " * 8000},
    {"OpenStack-API-Version": "placement " + "1" * 8000},
    {"Content-Type": "application/json" + ";a=b" * 2000},
    {"X-OpenStack-Request-Id": "req-" + "a" * 8000},
)


def probes(s: Seeded) -> list[Probe]:
    """Every malformed request for every route and method of the route table."""
    values = {
        "uuid": s.provider,
        "consumer_uuid": s.consumer,
        "name": s.trait,
        "resource_class": s.resource_class,
    }
    idents = {"audits": s.audit, "action_plans": s.plan, "actions": s.action}
    bodies = _valid_bodies(s)
    found = []
    for template, _resource, methods in routes.ROUTES:
        ident = next((v for k, v in idents.items() if f"/{k}/" in template), "dummy")
        path = _FIELD.sub(lambda m, ident=ident: values.get(m.group(1), ident), template)
        for method in (m.strip() for m in methods.split(",")):
            for name in _FIELD.findall(template):
                for bad in BAD_SEGMENTS:
                    found.append(Probe(method, path.replace(values.get(name, ident), bad, 1)))
            if (method, template) in bodies:
                found.extend(Probe(method, path, raw) for raw in RAW_BODIES)
                found.extend(
                    Probe(method, path, text.encode())
                    for text in _spoiled(bodies[(method, template)])
                )
            if method == "GET":
                found.extend(Probe(method, f"{path}?{query}") for query in QUERIES)
                found.extend(Probe(method, path, headers=h) for h in HEADERS)
    return found
