"""Audit templates and the audits made from them, on every database."""

from __future__ import annotations

import uuid

import pytest

from placement.actionplans import errors
from placement.actionplans.audit_request import AuditRequest
from placement.objects.actionplans import from_template, paging, templates
from tests.objects.actionplans.store import Store


def _name() -> str:
    return f"at-{uuid.uuid4().hex[:8]}"


def test_create_resolves_names_and_stores_defaults_as_given(store: Store) -> None:
    name = _name()
    made = templates.create_template(
        store.engine,
        {"name": name, "goal": "dummy", "strategy": "dummy", "default_parameters": {"para1": 2}},
    )
    assert (made.goal_name, made.strategy_name, made.scope) == ("dummy", "dummy", [])
    assert made.default_parameters == {"para1": 2}
    assert templates.get_template(store.engine, name) == made
    assert templates.get_template(store.engine, str(made.id)) == made


def test_refusals_store_nothing(store: Store) -> None:
    name = _name()
    refused = [
        ({"goal": "nosuch"}, errors.InvalidGoal),
        ({"goal": "dummy", "strategy": "nosuch"}, errors.InvalidStrategy),
        ({"goal": "dummy", "strategy": "actuator"}, errors.StrategyNotOfGoal),
        (
            {"goal": "dummy", "default_parameters": {"para1": 2}},
            errors.DefaultParametersNeedStrategy,
        ),
        (
            {"goal": "dummy", "strategy": "dummy", "default_parameters": {"bogus": 1}},
            errors.AuditParameterNotAllowed,
        ),
    ]
    for attributes, error in refused:
        with pytest.raises(error):
            templates.create_template(store.engine, {"name": name, **attributes})
    with pytest.raises(errors.NotFound):
        templates.get_template(store.engine, name)


def test_names_are_unique_among_live_templates(store: Store) -> None:
    name, other = _name(), _name()
    first = templates.create_template(store.engine, {"name": name, "goal": "dummy"})
    templates.create_template(store.engine, {"name": other, "goal": "dummy"})
    with pytest.raises(errors.TemplateNameTaken):
        templates.create_template(store.engine, {"name": name, "goal": "dummy"})
    with pytest.raises(errors.TemplateNameTaken):
        templates.update_template(store.engine, other, {"name": name})
    templates.delete_template(store.engine, first.uuid)
    with pytest.raises(errors.NotFound):
        templates.get_template(store.engine, first.uuid)
    again = templates.create_template(store.engine, {"name": name, "goal": "dummy"})
    assert again.uuid != first.uuid


def test_update_checks_the_result_whole(store: Store) -> None:
    name = _name()
    made = templates.create_template(
        store.engine,
        {"name": name, "goal": "dummy", "strategy": "dummy", "default_parameters": {"para1": 2}},
    )
    with pytest.raises(errors.DefaultParametersOutdated):
        templates.update_template(store.engine, name, {"strategy": None})
    with pytest.raises(errors.StrategyNotOfGoal):
        templates.update_template(
            store.engine, name, {"goal": "unclassified", "default_parameters": None}
        )
    changed = templates.update_template(
        store.engine,
        name,
        {"goal": "unclassified", "strategy": "actuator", "default_parameters": None},
    )
    assert (changed.goal_name, changed.strategy_name, changed.default_parameters) == (
        "unclassified",
        "actuator",
        None,
    )
    assert changed.uuid == made.uuid and changed.updated_at is not None


def test_a_null_goal_leaves_the_goal_but_asks_for_new_default_parameters(store: Store) -> None:
    bare, with_defaults = _name(), _name()
    templates.create_template(store.engine, {"name": bare, "goal": "dummy", "strategy": "dummy"})
    templates.create_template(
        store.engine,
        {
            "name": with_defaults,
            "goal": "dummy",
            "strategy": "dummy",
            "default_parameters": {"para1": 2},
        },
    )
    changed = templates.update_template(store.engine, bare, {"goal": None})
    assert (changed.goal_name, changed.strategy_name) == ("dummy", "dummy")
    with pytest.raises(errors.DefaultParametersOutdated):
        templates.update_template(store.engine, with_defaults, {"goal": None})


def test_list_filters_by_goal_and_strategy(store: Store) -> None:
    name = _name()
    templates.create_template(store.engine, {"name": name, "goal": "saving_energy"})
    listed = templates.list_templates(store.engine, paging.Page(), goal="saving_energy")
    assert [row.name for row in listed] == [name]
    assert templates.list_templates(store.engine, paging.Page(), strategy="nosuch") == []


def test_an_audit_takes_goal_strategy_scope_and_defaults_under_its_own(store: Store) -> None:
    name = _name()
    scope = [{"compute": [{"host_aggregates": [{"id": 3}]}]}]
    made = templates.create_template(
        store.engine,
        {
            "name": name,
            "goal": "dummy",
            "strategy": "dummy",
            "scope": scope,
            "default_parameters": {"para1": 2, "para2": "x"},
        },
    )
    request = AuditRequest(
        audit_type="ONESHOT", audit_template_uuid=made.uuid, parameters={"para1": 4}
    )
    assert from_template.apply_template(store.engine, request) == AuditRequest(
        audit_type="ONESHOT",
        goal=made.goal_uuid,
        strategy=made.strategy_uuid,
        scope=scope,
        parameters={"para1": 4, "para2": "x"},
    )


def test_an_audit_without_strategy_is_named_after_its_template(store: Store) -> None:
    made = templates.create_template(store.engine, {"name": _name(), "goal": "dummy"})
    request = from_template.apply_template(
        store.engine, AuditRequest(audit_type="ONESHOT", audit_template_uuid=made.uuid)
    )
    assert request.name is not None and request.name.startswith(f"{made.name}-20")
    assert request.strategy is None


def test_a_deleted_or_unknown_template_is_refused(store: Store) -> None:
    made = templates.create_template(store.engine, {"name": _name(), "goal": "dummy"})
    templates.delete_template(store.engine, made.uuid)
    for ident in (made.uuid, str(uuid.uuid4())):
        with pytest.raises(errors.UnknownTemplate):
            from_template.apply_template(
                store.engine, AuditRequest(audit_type="ONESHOT", audit_template_uuid=ident)
            )


def test_a_body_without_template_is_left_as_it_is(store: Store) -> None:
    request = AuditRequest(audit_type="ONESHOT", goal="dummy")
    assert from_template.apply_template(store.engine, request) is request
