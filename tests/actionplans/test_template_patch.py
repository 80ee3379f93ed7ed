"""Reading an audit template's JSON-Patch into the attributes it changes."""

from __future__ import annotations

import pytest

from placement.actionplans.errors import Invalid
from placement.actionplans.template_patch import changes


def test_each_operation_sets_or_removes_a_root_attribute_and_the_last_wins() -> None:
    patch = [
        {"op": "replace", "path": "/name", "value": "a"},
        {"op": "add", "path": "/strategy", "value": "dummy"},
        {"op": "remove", "path": "/description"},
        {"op": "replace", "path": "/name", "value": "b"},
    ]
    assert changes(patch) == {"name": "b", "strategy": "dummy", "description": None}


def test_a_null_goal_is_kept_for_the_object_layer() -> None:
    """Upstream leaves the goal of a null as it was (the object layer does)."""
    assert changes([{"op": "replace", "path": "/goal", "value": None}]) == {"goal": None}


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        ({"op": "replace", "path": "/uuid", "value": "x"}, "'/uuid' is an internal attribute"),
        ({"op": "remove", "path": "/created_at"}, "'/created_at' is an internal attribute"),
        ({"op": "add", "path": "/foo", "value": 1}, "Adding a new attribute (/foo) to the root"),
        ({"op": "replace", "path": "/foo", "value": 1}, "'/foo' is not an allowed attribute"),
        ({"op": "add", "path": "/scope/0", "value": {}}, "'/scope/0' is not an allowed"),
        ({"op": "remove", "path": "/goal"}, "Cannot remove 'goal' attribute"),
        ({"op": "remove", "path": "/name"}, "'/name' is a mandatory attribute"),
        ({"op": "replace", "path": "/name", "value": None}, "'/name' is a mandatory attribute"),
        ({"op": "replace", "path": "/name"}, "'add' and 'replace' operations needs value"),
        ({"op": "replace", "path": "/name", "value": ""}, "from 1 to 63 characters"),
        ({"op": "replace", "path": "/name", "value": "n" * 64}, "from 1 to 63 characters"),
        ({"op": "replace", "path": "/scope", "value": {}}, "is not a list"),
        ({"op": "replace", "path": "/default_parameters", "value": []}, "is not a dict"),
    ],
)
def test_refused_operations(operation: dict, message: str) -> None:
    with pytest.raises(Invalid, match=message.replace("(", r"\(").replace(")", r"\)")):
        changes([operation])


def test_null_removes_an_optional_attribute() -> None:
    assert changes([{"op": "replace", "path": "/strategy", "value": None}]) == {"strategy": None}
