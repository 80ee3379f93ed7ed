"""What the two hottest requests cost the database: a claim and a candidates query.

Each statement is a round trip, and a statement SQLAlchemy cannot cache is
compiled again on every request, so both are counted here on every
backend, through the whole application:

* a scheduler's claim (``PUT /allocations/{new consumer}`` with
  ``consumer_generation: null`` and owners that exist) is one checkout and
  one transaction of a fixed number of statements;
* a flat candidates query is one checkout and a fixed number of
  statements, on MySQL/MariaDB and PostgreSQL from the readers' pool, whose
  connections are in autocommit (no ``BEGIN`` and ``ROLLBACK`` round trips);
* every statement of a claim and of candidates queries (flat, nested, with
  and without ``limit``) has a cache key.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.engine.interfaces import CacheStats

from placement import db
from tests import apiclient, dbutil, rig

#: A flat candidates query's statements: the deployment's shape and id
#: range with the trait's and the aggregate's ids, how many providers have
#: the trait and are in the aggregate, the providers that have both
#: (``narrow.py``), the providers that fit, their summaries (providers with
#: usage and class names); one more reads the inventories and traits of
#: providers not yet known (``known.py``).
FLAT_CANDIDATES_STATEMENTS = 5

#: A claim's statements: consumer insert (reading the owner ids), provider
#: lock, inventories with usage, allocations delete, allocations insert,
#: provider generation swap. BEGIN, COMMIT and the pool's ping are not
#: statements SQLAlchemy executes.
CLAIM_STATEMENTS = 6


def claim_statements(api: apiclient.Api) -> int:
    """:data:`CLAIM_STATEMENTS`, plus a read of the owner ids first where
    the database returns no inserted rows (MySQL)."""
    return CLAIM_STATEMENTS + (0 if api.engine.dialect.insert_returning else 1)


@dataclass
class Tally:
    statements: list[str] = field(default_factory=list)
    uncached: list[str] = field(default_factory=list)
    checkouts: int = 0
    #: Whether each statement ran in autocommit, at the driver.
    autocommit: set[bool] = field(default_factory=set)


@contextmanager
def tallied(engine: sqlalchemy.Engine) -> Iterator[Tally]:
    """Count statements, uncacheable statements and pool checkouts on
    ``engine`` and its readers' engine."""
    tally = Tally()
    engines = list(dict.fromkeys([engine, db.readers_of(engine)]))

    def executed(conn, cursor, statement, parameters, context, executemany) -> None:
        if not isinstance(context, DefaultExecutionContext) or context.compiled is None:
            return  # the dialect's own (pings, BEGIN on SQLite)
        tally.statements.append(statement)
        tally.autocommit.add(dbutil.driver_autocommit(conn))
        if context.cache_hit is CacheStats.NO_CACHE_KEY:
            tally.uncached.append(statement)

    def checked_out(*_args) -> None:
        tally.checkouts += 1

    for each in engines:
        event.listen(each, "after_cursor_execute", executed)
        event.listen(each.pool, "checkout", checked_out)
    try:
        yield tally
    finally:
        for each in engines:
            event.remove(each, "after_cursor_execute", executed)
            event.remove(each.pool, "checkout", checked_out)


def _claim(
    api: apiclient.Api,
    provider: str,
    project: str = "p",
    user: str = "u",
    consumer_type: str | None = None,
) -> str:
    consumer = str(uuid.uuid4())
    body = {
        "allocations": {provider: {"resources": {"VCPU": 1, "MEMORY_MB": 64}}},
        "project_id": project,
        "user_id": user,
        "consumer_generation": None,
    }
    if consumer_type is not None:
        body["consumer_type"] = consumer_type
    api.ok("PUT", f"/allocations/{consumer}", body, version="1.38" if consumer_type else "1.28")
    return consumer


def test_a_claim_is_one_transaction_of_fixed_statements(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024})
    _claim(api, provider)  # the project and user now exist
    with tallied(api.engine) as tally:
        _claim(api, provider)
    assert tally.checkouts == 1
    assert len(tally.statements) == claim_statements(api), tally.statements
    assert tally.autocommit == {False}  # a transaction, on every backend
    assert api.usage(provider) == {"VCPU": 2, "MEMORY_MB": 128}


def test_a_flat_candidates_query_is_a_fixed_number_of_statements(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024})
    api.ok(
        "PUT",
        f"/resource_providers/{provider}/traits",
        {"resource_provider_generation": api.generation(provider), "traits": ["HW_CPU_X86_AVX2"]},
    )
    aggregate = str(uuid.uuid4())
    api.ok(
        "PUT",
        f"/resource_providers/{provider}/aggregates",
        {"resource_provider_generation": api.generation(provider), "aggregates": [aggregate]},
        version="1.19",
    )
    query = (
        f"/allocation_candidates?resources=VCPU:1&required=HW_CPU_X86_AVX2&member_of={aggregate}"
    )
    for expected in (FLAT_CANDIDATES_STATEMENTS + 1, FLAT_CANDIDATES_STATEMENTS):
        with tallied(api.engine) as tally:
            answer = api.ok("GET", query)
        assert len(answer.json()["allocation_requests"]) == 1
        assert tally.checkouts == 1
        assert len(tally.statements) == expected, tally.statements
        assert tally.autocommit == {api.backend != "sqlite"}


def test_a_claim_of_a_typed_consumer_reads_its_type_in_the_same_insert(
    api: apiclient.Api,
) -> None:
    provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024})
    _claim(api, provider, consumer_type="INSTANCE")  # the type now exists
    with tallied(api.engine) as tally:
        consumer = _claim(api, provider, consumer_type="INSTANCE")
    assert len(tally.statements) == claim_statements(api), tally.statements
    held = api.ok("GET", f"/allocations/{consumer}", version="1.38").json()
    assert (held["consumer_type"], held["project_id"], held["user_id"]) == ("INSTANCE", "p", "u")
    assert held["consumer_generation"] == 1
    _claim(api, provider, consumer_type="MIGRATION")  # a type not seen yet
    assert api.usage(provider) == {"VCPU": 3, "MEMORY_MB": 192}


def test_a_claim_by_a_new_project_creates_it_and_still_claims(api: apiclient.Api) -> None:
    provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024})
    project = f"new-{uuid.uuid4()}"
    _claim(api, provider, project=project, user=project)
    _claim(api, provider, project=project, user=project)
    assert api.usage(provider) == {"VCPU": 2, "MEMORY_MB": 128}
    found = api.ok("GET", f"/usages?project_id={project}", version="1.9").json()["usages"]
    assert found == {"VCPU": 2, "MEMORY_MB": 128}


def test_hot_statements_are_cacheable(api: apiclient.Api) -> None:
    root = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024}, DISK_GB={"total": 100})
    api.provider(parent=root, VCPU={"total": 4})
    api.ok(
        "PUT",
        f"/resource_providers/{root}/traits",
        {"resource_provider_generation": api.generation(root), "traits": ["HW_CPU_X86_AVX2"]},
    )
    queries = [
        "resources=VCPU:1,MEMORY_MB:64&required=HW_CPU_X86_AVX2",
        "resources=VCPU:1,MEMORY_MB:64&limit=1",
        "resources=DISK_GB:1&resources1=VCPU:1&group_policy=none",
    ]
    with tallied(api.engine) as tally:
        _claim(api, root)
        for version in ("1.17", "1.29", "latest"):
            for query in queries:
                if version == "1.17" and "resources1" in query:
                    continue
                api.ok("GET", f"/allocation_candidates?{query}", version=version)
    assert tally.statements
    assert tally.uncached == []


def test_null_generation_for_an_existing_consumer_is_a_generation_conflict(backend: str) -> None:
    """The claim's unread insert of a "new" consumer that exists after all
    costs no retry of ``allocation_conflict_retry_count``: with a single
    attempt allowed, the answer is still the consumer generation conflict."""
    with rig.placement_app(backend, placement={"allocation_conflict_retry_count": 1}) as (
        app,
        conf,
    ):
        api = apiclient.Api(app, conf, backend)
        provider = api.provider(VCPU={"total": 8}, MEMORY_MB={"total": 1024})
        consumer = str(uuid.uuid4())
        body = {
            "allocations": {provider: {"resources": {"VCPU": 1, "MEMORY_MB": 64}}},
            "project_id": "p",
            "user_id": "u",
            "consumer_generation": None,
        }
        api.ok("PUT", f"/allocations/{consumer}", body, version="1.28")
        again = api.put(f"/allocations/{consumer}", json=body, version="1.28")
        assert again.status_code == 409
        detail = again.json()["errors"][0]["detail"]
        assert "consumer generation conflict - expected 1 but got None" in detail, detail
        assert api.usage(provider) == {"VCPU": 1, "MEMORY_MB": 64}
