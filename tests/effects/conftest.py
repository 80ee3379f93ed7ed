"""A small cloud per backend and module, wiped between tests, and a way to run an action
the way the applier does: inside one writer transaction, again after a lost race."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
import sqlalchemy
from oslo_config import cfg

from placement.db import actionplan_tables, reader, tables, writer
from placement.effects.base import Effect, Outcome, RunAgain, RunEnv
from placement.objects import allocation, claim, claim_consumers, inventory, trait, usage
from placement.objects import resource_provider as rp_obj
from tests import rig

#: Rows of these tables are the test's; the others (classes, traits) are the catalog's.
_WIPED = (
    actionplan_tables.powered_off_inventories,
    tables.allocations,
    tables.consumers,
    tables.inventories,
    tables.resource_provider_traits,
    tables.resource_provider_aggregates,
)


class Cloud:
    """Providers, inventories and consumers built through the object layer."""

    def __init__(self, engine: sqlalchemy.Engine, conf: cfg.ConfigOpts, backend: str) -> None:
        self.engine = engine
        self.conf = conf
        self.backend = backend
        self.env = RunEnv(conf, engine, threading.Event())

    def node(
        self, name: str, parent: rp_obj.Provider | None = None, **inventories: int | dict
    ) -> rp_obj.Provider:
        """A provider named ``name`` with ``CLASS=total`` (or ``CLASS={record}``) inventories."""
        provider = rp_obj.create_provider(
            self.engine,
            name=name,
            uuid=str(uuid.uuid4()),
            parent_uuid=parent.uuid if parent else None,
        )
        if inventories:
            records = {
                rc: value if isinstance(value, dict) else {"total": value}
                for rc, value in inventories.items()
            }
            inventory.set_inventories(self.engine, provider, records)
        return self.provider(provider.uuid)

    def provider(self, uuid_: str) -> rp_obj.Provider:
        found = rp_obj.find(self.engine, uuid_)
        assert found is not None
        return found

    def add_traits(self, provider: rp_obj.Provider, *names: str) -> None:
        current = trait.provider_traits(self.engine, provider.uuid)
        wanted = [t.name for t in current.traits] + list(names)
        trait.set_provider_traits(self.engine, provider.uuid, current.generation, wanted)

    def traits(self, provider: rp_obj.Provider) -> set[str]:
        return {t.name for t in trait.provider_traits(self.engine, provider.uuid).traits}

    def claim(
        self,
        allocations: dict[str, dict[str, int]],
        consumer: str | None = None,
        consumer_type: str | None = None,
    ) -> str:
        """Give a (new) consumer ``allocations`` (provider uuid → class → amount), of
        ``consumer_type`` if given (else untyped, as before microversion 1.38)."""
        consumer = consumer or str(uuid.uuid4())
        write = claim_consumers.ConsumerWrite(
            consumer, "project", "user", allocations, consumer_type=consumer_type
        )
        claim.replace(self.engine, [write], attempts=10)
        return consumer

    def held(self, consumer: str) -> dict[str, dict[str, int]]:
        found = allocation.get_for_consumer(self.engine, consumer)
        return {} if found is None else {p: s.resources for p, s in found.providers.items()}

    def usage(self, provider: rp_obj.Provider) -> dict[str, int]:
        return usage.provider_usages(self.engine, provider.id)

    def inventories(self, provider: rp_obj.Provider) -> dict[str, inventory.Inventory]:
        return inventory.list_for_provider(self.engine, provider)

    def run(self, effect: Effect, params: dict[str, Any], env: RunEnv | None = None) -> Outcome:
        """Run one action as the applier would (valid parameters, own transaction, retries)."""
        jsonschema.Draft4Validator(effect.declaration.input_schema).validate(params)
        for _ in range(20):
            try:
                with writer(self.engine) as conn:
                    return effect.run(conn, params, env or self.env)
            except RunAgain:
                continue
        raise AssertionError("the action lost every race")

    def wipe(self) -> None:
        with writer(self.engine) as conn:
            for table in _WIPED:
                conn.execute(table.delete())
            rp = tables.resource_providers
            conn.execute(rp.update().values(parent_provider_id=None, root_provider_id=None))
            conn.execute(rp.delete())
            conn.execute(tables.projects.delete())
            conn.execute(tables.users.delete())

    def consistent(self) -> None:
        """Every provider's usage fits its capacity (what no action may ever break)."""
        with reader(self.engine) as conn:
            rows = conn.execute(
                sqlalchemy.text(
                    "SELECT i.resource_provider_id, i.resource_class_id,"
                    " (i.total - i.reserved) * i.allocation_ratio AS capacity,"
                    " (SELECT COALESCE(SUM(a.used), 0) FROM allocations a"
                    "  WHERE a.resource_provider_id = i.resource_provider_id"
                    "  AND a.resource_class_id = i.resource_class_id) AS used"
                    " FROM inventories i"
                )
            ).all()
        over = [row for row in rows if row.used > row.capacity]
        assert not over, over


@pytest.fixture(scope="module", params=rig.backends())
def module_cloud(request: pytest.FixtureRequest) -> Iterator[Cloud]:
    with rig.placement_app(request.param) as (app, conf):
        yield Cloud(app.placement_engine, conf, request.param)


@pytest.fixture
def cloud(module_cloud: Cloud) -> Iterator[Cloud]:
    yield module_cloud
    module_cloud.wipe()
