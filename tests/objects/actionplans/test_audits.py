"""Creating an audit: goal and strategy resolved, strategy and planner run, all stored at once."""

from __future__ import annotations

import datetime
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest

from placement.actionplans import errors
from placement.actionplans.audit_request import AuditRequest
from placement.actionplans.planners import options as planner_defaults
from placement.db import actionplan_tables as t
from placement.effects import registry
from placement.objects.actionplans import audits, planning, strategies
from placement.objects.actionplans.paging import Page
from tests import rig
from tests.applier.processes import PLUGIN
from tests.objects.actionplans.store import nop, nops


def test_actuator_audit_stores_a_recommended_plan_in_plan_order(store):
    migrate = {
        "action_type": "migrate",
        "resource_id": "1f6b1f9a-3b1e-4c1e-8f0e-4a4c2b8e9d01",
        "input_parameters": {"migration_type": "live", "source_node": "host-a"},
    }
    service = {
        "action_type": "change_nova_service_state",
        "resource_id": "host-a",
        "input_parameters": {"state": "disabled"},
    }
    audit = store.audit(migrate, service, nop("first"))
    assert audit.state == "SUCCEEDED"
    assert (audit.goal_name, audit.strategy_name) == ("unclassified", "actuator")
    assert audit.strategy_uuid == strategies.get_strategy(store.engine, "actuator").uuid
    assert audit.parameters["actions"][0] == migrate
    assert audit.scope == [] and audit.auto_trigger is False
    assert audit.force is True  # Store.audit plans whatever else is ONGOING
    assert not hasattr(audit, "deleted")
    plan = store.plan_of(audit)
    assert plan.state == "RECOMMENDED"
    assert (plan.audit_uuid, plan.strategy_name) == (audit.uuid, "actuator")
    listed = store.actions_of(plan)
    assert [a.position for a in listed] == list(range(3))
    assert [a.id for a in listed] == sorted(a.id for a in listed)
    by_type = {a.action_type: a for a in listed}
    assert by_type["migrate"].input_parameters == {
        "migration_type": "live",
        "source_node": "host-a",
        "resource_id": migrate["resource_id"],
    }
    uuids = {a.uuid for a in listed}
    seen: set[str] = set()
    for action in listed:
        assert action.state == "PENDING"
        assert action.action_plan_uuid == plan.uuid
        assert set(action.parents) <= seen  # parents are uuids of earlier actions
        seen.add(action.uuid)
    assert seen == uuids
    assert listed[0].parents == [] and any(a.parents for a in listed)


def test_planner_named_by_the_audit_decides_the_parents(store):
    items = nops(3)
    weight = store.actions_of(store.plan_of(store.audit(*items)))
    chained = [[], [weight[0].uuid], [weight[1].uuid]]
    assert [a.parents for a in weight] == chained  # nop parallelization 1
    wide = store.audit(
        parameters={"actions": items, "planner": "workload_stabilization"},
    )
    stabilized = store.actions_of(store.plan_of(wide))
    assert len(stabilized) == 3


def compute_node_holding(store, name: str, consumer: str) -> str:
    """A provider ``name`` (made through the API) where ``consumer`` holds 2 VCPU; its uuid."""
    status, made = rig.call(store.app, "POST", "/resource_providers", {"name": name}, "1.20")
    assert status == 200, made
    provider = made["uuid"]
    inventory = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8}}}
    status, _ = rig.call(store.app, "PUT", f"/resource_providers/{provider}/inventories", inventory)
    assert status == 200
    claim = {
        "allocations": {provider: {"resources": {"VCPU": 2}}},
        "project_id": "p",
        "user_id": "u",
        "consumer_generation": None,
    }
    status, _ = rig.call(store.app, "PUT", f"/allocations/{consumer}", claim, version="1.28")
    assert status == 204
    return provider


def test_resize_under_workload_stabilization_reads_the_current_host(store):
    consumer = "2a7e4bc1-6c55-4b43-9a8d-3d0c1e5f7a10"
    compute_node_holding(store, "compute-7", consumer)
    resize = {
        "action_type": "resize",
        "resource_id": consumer,
        "input_parameters": {"flavor": "m1"},
    }
    migrate = {
        "action_type": "migrate",
        "resource_id": consumer,
        "input_parameters": {"migration_type": "live", "source_node": "compute-7"},
    }
    audit = store.audit(
        parameters={"actions": [resize, migrate], "planner": "workload_stabilization"}
    )
    listed = store.actions_of(store.plan_of(audit))
    assert sorted(a.action_type for a in listed) == ["migrate", "resize"]
    assert listed[1].parents == [listed[0].uuid]  # one instance: ordered

    stranger = "0d9e8f7a-6b5c-4d3e-8f1a-2b3c4d5e6f70"
    before = store.counts()
    with pytest.raises(errors.ConsumerHasNoAllocations) as caught:
        store.audit(
            parameters={
                "actions": [{**resize, "resource_id": stranger}],
                "planner": "workload_stabilization",
            }
        )
    assert stranger in str(caught.value)
    assert store.counts() == before


def test_nodes_named_by_uuid_or_name_are_one_node(store):
    consumer = "8b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
    provider = compute_node_holding(store, "compute-8", consumer)
    migrate = {
        "action_type": "migrate",
        "resource_id": consumer,
        "input_parameters": {"migration_type": "live", "source_node": provider},
    }
    power_down = {
        "action_type": "turn_host_to_acpi_s3_state",
        "resource_id": "compute-8",
        "input_parameters": {},
    }
    parameters = {"actions": [power_down, migrate], "planner": "workload_stabilization"}
    listed = store.actions_of(store.plan_of(store.audit(parameters=parameters)))
    assert [a.action_type for a in listed] == ["migrate", "turn_host_to_acpi_s3_state"]
    assert listed[1].parents == [listed[0].uuid]
    assert listed[0].input_parameters["source_node"] == provider  # stored as given


def test_auto_trigger_starts_the_plan_and_an_empty_solution_succeeds_at_once(store):
    started = store.audit(nop("go"), auto_trigger=True)
    assert started.auto_trigger is True
    assert store.plan_of(started).state == "PENDING"
    empty = store.audit(parameters={"actions": []})
    plan = store.plan_of(empty)
    assert plan.state == "SUCCEEDED"
    assert store.actions_of(plan) == []


def test_no_strategy_runs_the_goals_first_and_keeps_none(store):
    audit = store.audit(goal="dummy", strategy=None, parameters={})
    assert (audit.strategy_uuid, audit.strategy_name) == (None, None)
    assert audit.parameters == {}
    assert store.plan_of(audit).strategy_name == "dummy"


def test_strategy_defaults_are_stored(store):
    audit = store.audit(goal="dummy", strategy="dummy", parameters={"para1": 2})
    assert audit.parameters == {"para1": 2, "para2": "hello"}


def test_default_name_and_long_names(store):
    audit = store.audit(name=None)
    prefix, _, stamp = audit.name.partition("-")
    assert prefix == "actuator"
    assert datetime.datetime.fromisoformat(stamp) <= datetime.datetime.utcnow()
    by_goal = store.audit(name=None, goal="dummy", strategy=None, parameters={})
    assert by_goal.name.startswith("dummy-")
    long = store.audit(name="x" * 70)
    assert long.name == "x" * planning.NAME_LENGTH
    assert audits.get_audit(store.engine, long.uuid) == long
    assert audits.get_audit(store.engine, str(long.id)).uuid == long.uuid
    assert audits.get_audit(store.engine, "x" * 63).uuid == long.uuid


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"goal": "nosuch"}, errors.NotFound, "Goal nosuch could not be found"),
        ({"strategy": "nosuch"}, errors.NotFound, "Strategy nosuch could not be found"),
        (
            {"goal": "dummy", "strategy": None, "parameters": {"para1": 2}},
            errors.InvalidAuditParameters,
            "Specify parameters but no predefined strategy",
        ),
        (
            {"parameters": {"actions": [nop("a")], "extra": 1}},
            errors.AuditParameterNotAllowed,
            "Audit parameter extra are not allowed",
        ),
        (
            {
                "parameters": {
                    "actions": [nop("a"), {"action_type": "sleep", "input_parameters": {}}]
                }
            },
            errors.InvalidActionParameters,
            "actions[1].input_parameters.duration",
        ),
        (
            {"parameters": {"actions": [{"action_type": "bogus", "input_parameters": {}}]}},
            errors.UnknownActionType,
            "actions[0].action_type",
        ),
    ],
)
def test_refusals_store_nothing(store, fields, error, message):
    before = store.counts()
    with pytest.raises(error) as caught:
        store.audit(**fields)
    assert str(caught.value).startswith(message)
    assert store.counts() == before


@pytest.mark.parametrize(
    "timing",
    [
        {"audit_type": "ONESHOT"},
        {"audit_type": "CONTINUOUS", "interval": "60"},
        {"audit_type": "EVENT"},
    ],
)
def test_a_strategy_that_cannot_run_here_stores_the_audit_failed(store, timing):
    before = store.counts()
    audit = store.audit(
        goal="thermal_optimization", strategy="outlet_temperature", parameters={}, **timing
    )
    assert audit.state == "FAILED"
    assert audit.status_message == (
        "Strategy outlet_temperature cannot run in this service: it reads host_outlet_temp, "
        "which no datasource served here answers "
        "(upstream's Prometheus datasource has no series for them)"
    )
    assert audit.parameters == {"threshold": 35.0, "period": 30, "granularity": 300}
    after = store.counts()
    assert after["audits"] == before["audits"] + 1
    assert (after["action_plans"], after["actions"]) == (before["action_plans"], before["actions"])


def test_a_goal_whose_only_strategy_cannot_run_fails_naming_it(store):
    audit = store.audit(goal="airflow_optimization", strategy=None, parameters={})
    assert (audit.state, audit.strategy_name) == ("FAILED", None)
    assert audit.status_message.startswith("Strategy uniform_airflow cannot run in this service")


def test_a_goal_runs_its_first_strategy_that_can_run(store):
    """storage_capacity_balance comes first for workload_balancing, but needs Cinder."""
    audit = store.audit(goal="workload_balancing", strategy=None, parameters={})
    # workload_balance reads measured load, and this store has no datasource
    assert audit.state == "FAILED"
    assert audit.status_message.startswith("Strategy workload_balance reads measured load")


def test_names_are_unique_among_live_audits(store):
    first = store.audit(name="unique-name")
    before = store.counts()
    with pytest.raises(errors.Conflict) as caught:
        store.audit(name="unique-name")
    assert str(caught.value) == "An audit with UUID or name unique-name already exists"
    assert store.counts() == before
    audits.delete_audit(store.engine, first.uuid)
    again = store.audit(name="unique-name")
    assert audits.get_audit(store.engine, "unique-name").uuid == again.uuid


def test_delete_hides_the_audit_and_keeps_its_plan(store):
    audit = store.audit()
    plan = store.plan_of(audit)
    audits.delete_audit(store.engine, audit.name)
    with pytest.raises(errors.NotFound, match=f"^Audit {audit.uuid} could not be found$"):
        audits.get_audit(store.engine, audit.uuid)
    assert audit.uuid not in {a.uuid for a in audits.list_audits(store.engine, Page())}
    assert store.plan_of(audit).uuid == plan.uuid
    with pytest.raises(errors.NotFound):
        audits.delete_audit(store.engine, audit.uuid)


@pytest.mark.parametrize("state", ["PENDING", "ONGOING"])
def test_delete_refused_while_running(store, state):
    audit = store.audit()
    store.set_state(t.audits, audit.uuid, state)
    with pytest.raises(errors.DeleteError, match=f"^Couldn't delete when state is '{state}'.$"):
        audits.delete_audit(store.engine, audit.uuid)
    assert audits.get_audit(store.engine, audit.uuid).state == state


def test_list_filters_by_goal_and_strategy(store):
    mine = store.audit(goal="dummy", strategy="dummy", parameters={})
    auto = store.audit(goal="dummy", strategy=None, parameters={})
    goal_uuid = mine.goal_uuid
    by_goal = {a.uuid for a in audits.list_audits(store.engine, Page(), goal=goal_uuid)}
    assert {mine.uuid, auto.uuid} <= by_goal
    assert all(
        a.goal_name == "dummy" for a in audits.list_audits(store.engine, Page(), goal="dummy")
    )
    by_strategy = audits.list_audits(store.engine, Page(), strategy="dummy")
    assert mine.uuid in {a.uuid for a in by_strategy}
    assert auto.uuid not in {a.uuid for a in by_strategy}
    assert audits.list_audits(store.engine, Page(), goal="nosuch") == []


def test_pages_with_null_sort_keys(store):
    store.audit(goal="dummy", strategy=None, parameters={})
    store.audit()
    for direction in ("asc", "desc"):
        order = Page(sort_key="strategy_name", sort_dir=direction)
        whole = audits.list_audits(store.engine, order)
        names = [a.strategy_name for a in whole]
        nulls = [name for name in names if name is None]
        rest = sorted(name for name in names if name is not None)
        assert names == (nulls + rest if direction == "asc" else rest[::-1] + nulls)
        pages, marker = [], None
        while got := audits.list_audits(store.engine, Page(2, marker, "strategy_name", direction)):
            pages.extend(got)
            marker = got[-1].uuid
        assert [a.uuid for a in pages] == [a.uuid for a in whole]


def test_concurrent_creates_of_one_name_have_one_winner(store):
    before = store.counts()
    results = rig.run_together(4, lambda _i: store.audit(name="raced-name"))
    won = [r for r in results if isinstance(r, audits.Audit)]
    assert len(won) == 1
    for lost in results:
        if not isinstance(lost, audits.Audit):
            assert isinstance(lost, errors.Conflict), repr(lost)
    listed = audits.list_audits(store.engine, Page())
    assert [a.uuid for a in listed if a.name == "raced-name"] == [won[0].uuid]
    after = store.counts()
    assert {name: after[name] - before[name] for name in after} == {
        "audits": 1,
        "action_plans": 1,
        "actions": 3,
    }


@pytest.fixture
def plugin_installed() -> Iterator[None]:
    """The test plugin's distribution (action types ``recorded`` and ``wait``) on sys.path."""
    sys.path.insert(0, str(PLUGIN))
    try:
        yield
    finally:
        sys.path.remove(str(PLUGIN))


def _actuator(*items: dict) -> dict:
    return {
        "name": f"plugin-{uuid.uuid4().hex[:8]}",
        "goal": "unclassified",
        "strategy": "actuator",
        "audit_type": "ONESHOT",
        "parameters": {"actions": list(items)},
    }


def test_an_installed_plugin_type_enters_a_plan_by_its_declaration(store, plugin_installed):
    installed = registry.installed_declarations()
    weights = planner_defaults.weights(installed)  # the plugin's type weighs 45
    options = replace(store.options, weight_weights=weights, action_types=installed)
    before = store.counts()
    bad = {"action_type": "wait", "input_parameters": {"seconds": -1}}
    with pytest.raises(
        errors.InvalidActionParameters, match=r"^actions\[0\]\.input_parameters\.seconds"
    ):
        audits.create_audit(store.engine, options, AuditRequest.from_body(_actuator(bad)))
    assert store.counts() == before
    good = {"action_type": "wait", "input_parameters": {"seconds": 1}}
    audit = audits.create_audit(
        store.engine, options, AuditRequest.from_body(_actuator(good, nop("after")))
    )
    planned = store.actions_of(store.plan_of(audit))
    assert [action.action_type for action in planned] == ["nop", "wait"]


def test_a_type_nothing_installs_is_refused(store):
    with pytest.raises(errors.UnknownActionType):
        store.audit({"action_type": "wait", "input_parameters": {"seconds": 1}})
