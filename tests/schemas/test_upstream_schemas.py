"""Our schemas are upstream's, key order included, at every microversion.

jsonschema reports the first error among the most relevant ones, in the
order it walks the schema's keys, and its message prints the failing
schema: a 400's ``JSON does not validate`` (or ``Invalid query string
parameters``) detail matches upstream's only when the schema documents are
the same, in the same order. Upstream's schemas are read from its own
package in its venv (``PLACEMENT_UPSTREAM_VENV``, by default the
conformance harness's), by a subprocess with that venv's Python: they
cannot be imported beside ours, both packages being ``placement``. Without
that venv the test is skipped.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess

import pytest

from placement import microversion as mv
from placement.schemas import Schema, Versioned
from tests.cmd.compare_upstream import DEFAULT_UPSTREAM_VENV

UPSTREAM_VENV = os.environ.get("PLACEMENT_UPSTREAM_VENV", DEFAULT_UPSTREAM_VENV)
UPSTREAM_PYTHON = os.path.join(UPSTREAM_VENV, "bin", "python")

#: Prints ``{"<module>.<NAME>": schema}`` for every schema upstream's
#: ``placement.schemas`` modules define, in their key order. ``-I`` keeps
#: this checkout (and so our ``placement``) off the path.
_DUMP = """
import importlib, json, pkgutil, sys
import placement.schemas as package
found = {}
for module in pkgutil.iter_modules(package.__path__):
    values = vars(importlib.import_module("placement.schemas." + module.name))
    for name, value in values.items():
        if name.isupper() and isinstance(value, dict):
            found[module.name + "." + name] = value
json.dump(found, sys.stdout)
"""

# Ours (``<module>.<NAME>`` of ``placement.schemas``: a Versioned or a plain
# schema) and the microversion it is asked at, with the name of upstream's
# schema for the same request there.
PAIRS: list[tuple[str, str, str]] = [
    ("aggregate.PUT_AGGREGATES", "1.1", "aggregate.PUT_AGGREGATES_SCHEMA_V1_1"),
    ("aggregate.PUT_AGGREGATES", "1.19", "aggregate.PUT_AGGREGATES_SCHEMA_V1_19"),
    ("allocation.PUT", "1.0", "allocation.ALLOCATION_SCHEMA"),
    ("allocation.PUT", "1.8", "allocation.ALLOCATION_SCHEMA_V1_8"),
    ("allocation.PUT", "1.12", "allocation.ALLOCATION_SCHEMA_V1_12"),
    ("allocation.PUT", "1.28", "allocation.ALLOCATION_SCHEMA_V1_28"),
    ("allocation.PUT", "1.34", "allocation.ALLOCATION_SCHEMA_V1_34"),
    ("allocation.PUT", "1.38", "allocation.ALLOCATION_SCHEMA_V1_38"),
    ("allocation.POST", "1.13", "allocation.POST_ALLOCATIONS_V1_13"),
    ("allocation.POST", "1.28", "allocation.POST_ALLOCATIONS_V1_28"),
    ("allocation.POST", "1.34", "allocation.POST_ALLOCATIONS_V1_34"),
    ("allocation.POST", "1.38", "allocation.POST_ALLOCATIONS_V1_38"),
    ("inventory.PUT_ONE", "1.0", "inventory.BASE_INVENTORY_SCHEMA"),
    ("inventory.POST_ONE", "1.0", "inventory.POST_INVENTORY_SCHEMA"),
    ("inventory.PUT_ALL", "1.0", "inventory.PUT_INVENTORY_SCHEMA"),
    ("reshaper.RESHAPE", "1.30", "reshaper.POST_RESHAPER_SCHEMA"),
    ("reshaper.RESHAPE", "1.34", "reshaper.POST_RESHAPER_SCHEMA_V1_34"),
    ("reshaper.RESHAPE", "1.38", "reshaper.POST_RESHAPER_SCHEMA_V1_38"),
    ("resource_class.NAME_BODY", "1.2", "resource_class.POST_RC_SCHEMA_V1_2"),
    ("resource_class.NAME_BODY", "1.2", "resource_class.PUT_RC_SCHEMA_V1_2"),
    ("resource_provider.POST_PROVIDER", "1.0", "resource_provider.POST_RESOURCE_PROVIDER_SCHEMA"),
    ("resource_provider.POST_PROVIDER", "1.14", "resource_provider.POST_RP_SCHEMA_V1_14"),
    ("resource_provider.PUT_PROVIDER", "1.0", "resource_provider.PUT_RESOURCE_PROVIDER_SCHEMA"),
    ("resource_provider.PUT_PROVIDER", "1.14", "resource_provider.PUT_RP_SCHEMA_V1_14"),
    ("trait.SET_PROVIDER_TRAITS", "1.6", "trait.SET_TRAITS_FOR_RP_SCHEMA"),
    ("trait.CUSTOM_NAME", "1.6", "trait.CUSTOM_TRAIT"),
    ("allocation_candidate.QUERY", "1.10", "allocation_candidate.GET_SCHEMA_1_10"),
    ("allocation_candidate.QUERY", "1.16", "allocation_candidate.GET_SCHEMA_1_16"),
    ("allocation_candidate.QUERY", "1.17", "allocation_candidate.GET_SCHEMA_1_17"),
    ("allocation_candidate.QUERY", "1.21", "allocation_candidate.GET_SCHEMA_1_21"),
    ("allocation_candidate.QUERY", "1.25", "allocation_candidate.GET_SCHEMA_1_25"),
    ("allocation_candidate.QUERY", "1.31", "allocation_candidate.GET_SCHEMA_1_31"),
    ("allocation_candidate.QUERY", "1.33", "allocation_candidate.GET_SCHEMA_1_33"),
    ("allocation_candidate.QUERY", "1.35", "allocation_candidate.GET_SCHEMA_1_35"),
    ("allocation_candidate.QUERY", "1.36", "allocation_candidate.GET_SCHEMA_1_36"),
    ("resource_provider.LIST_QUERY", "1.0", "resource_provider.GET_RPS_SCHEMA_1_0"),
    ("resource_provider.LIST_QUERY", "1.3", "resource_provider.GET_RPS_SCHEMA_1_3"),
    ("resource_provider.LIST_QUERY", "1.4", "resource_provider.GET_RPS_SCHEMA_1_4"),
    ("resource_provider.LIST_QUERY", "1.14", "resource_provider.GET_RPS_SCHEMA_1_14"),
    ("resource_provider.LIST_QUERY", "1.18", "resource_provider.GET_RPS_SCHEMA_1_18"),
    ("trait.LIST_QUERY", "1.6", "trait.LIST_TRAIT_SCHEMA"),
    ("usage.USAGES_QUERY", "1.9", "usage.GET_USAGES_SCHEMA_1_9"),
    ("usage.USAGES_QUERY", "1.38", "usage.GET_USAGES_SCHEMA_V1_38"),
]


@pytest.fixture(scope="module")
def upstream() -> dict[str, Schema]:
    if not os.path.exists(UPSTREAM_PYTHON):
        pytest.skip(f"no upstream Placement venv at {UPSTREAM_VENV}")
    done = subprocess.run(
        [UPSTREAM_PYTHON, "-I", "-c", _DUMP], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"upstream's schemas cannot be read from {UPSTREAM_VENV}: {done.stderr}")
    return json.loads(done.stdout)


def _at(name: str, version: str) -> Schema:
    """Our schema ``<module>.<NAME>`` at ``version``."""
    module, _, attribute = name.partition(".")
    ours = getattr(importlib.import_module(f"placement.schemas.{module}"), attribute)
    if isinstance(ours, Versioned):
        major, minor = version.split(".")
        return ours.at(mv.Version(int(major), int(minor)))
    return ours


def _key_orders(schema: object, path: str = "") -> list[tuple[str, list[str]]]:
    """Every object's path and its keys in order, depth first."""
    if isinstance(schema, dict):
        found = [(path, list(schema))]
        for key, value in schema.items():
            found += _key_orders(value, f"{path}/{key}")
        return found
    if isinstance(schema, list):
        return [
            entry
            for index, item in enumerate(schema)
            for entry in _key_orders(item, f"{path}/{index}")
        ]
    return []


@pytest.mark.parametrize(("ours", "version", "name"), PAIRS, ids=[name for _, _, name in PAIRS])
def test_schema_is_upstreams_in_its_key_order(
    upstream: dict[str, Schema], ours: str, version: str, name: str
) -> None:
    # Through JSON, as upstream's came: tuples become lists, nothing else changes.
    mine = json.loads(json.dumps(_at(ours, version)))
    assert _key_orders(mine) == _key_orders(upstream[name])
    assert mine == upstream[name]


def test_every_upstream_schema_is_compared(upstream: dict[str, Schema]) -> None:
    """A schema upstream adds (a new microversion's) needs a pair above."""
    compared = {name for _, _, name in PAIRS}
    # Building blocks that no request is validated against as they are.
    parts = {
        "aggregate._AGGREGATES_LIST_SCHEMA",
        "allocation.DELETABLE_ALLOCATIONS",
        "allocation.REQUIRED_GENERATION_ALLOCS_POST",
        "inventory.PUT_INVENTORY_RECORD_SCHEMA",
        "reshaper.ALLOCATIONS",
        "reshaper.ALLOCATIONS_V1_34",
        "reshaper.ALLOCATIONS_V1_38",
        "trait.TRAIT",
        "trait.PUT_TRAITS_SCHEMA",
    }
    assert set(upstream) - parts == compared
