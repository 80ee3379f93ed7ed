"""``schemas.Versioned``: each microversion's change applied once, in order."""

from __future__ import annotations

import pytest

from placement import microversion as mv
from placement.schemas import Versioned, adding, changed, obj, requiring

FIRST = obj({"name": {"type": "string"}}, "name")


def test_each_version_is_the_previous_plus_its_change():
    schema = Versioned(
        FIRST,
        (mv.Version(1, 3), adding(member_of={"type": "string"})),
        (mv.Version(1, 7), requiring(uuid={"type": "string"})),
    )
    assert schema.at(mv.Version(1, 0)) is FIRST
    assert schema.at(mv.Version(1, 2)) is FIRST
    assert list(schema.at(mv.Version(1, 3))["properties"]) == ["name", "member_of"]
    assert schema.at(mv.Version(1, 6)) is schema.at(mv.Version(1, 3))
    latest = schema.at(mv.Version(1, 39))
    assert list(latest["properties"]) == ["name", "member_of", "uuid"]
    assert latest["required"] == ["name", "uuid"]


def test_changes_never_touch_the_schemas_they_start_from():
    schema = Versioned(FIRST, (mv.Version(1, 1), requiring(uuid={"type": "string"})))
    assert FIRST == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    }
    assert schema.at(mv.Version(1, 0))["required"] == ["name"]
    assert changed(FIRST, adding(x={}))["properties"].keys() == {"name", "x"}
    assert FIRST["properties"].keys() == {"name"}


def test_changes_of_one_version_apply_in_turn():
    schema = Versioned(
        FIRST,
        (mv.Version(1, 5), adding(a={})),
        (mv.Version(1, 5), adding(b={})),
    )
    assert list(schema.at(mv.Version(1, 5))["properties"]) == ["name", "a", "b"]


def test_changes_out_of_order_are_refused():
    with pytest.raises(ValueError, match="out of order"):
        Versioned(FIRST, (mv.Version(1, 5), adding(a={})), (mv.Version(1, 4), adding(b={})))


def test_a_wrapping_schema_follows_every_version():
    inner = Versioned(FIRST, (mv.Version(1, 2), adding(a={})))
    outer = inner.map(lambda schema: {"type": "array", "items": schema})
    assert outer.at(mv.Version(1, 0))["items"] is inner.at(mv.Version(1, 0))
    assert outer.at(mv.Version(1, 9))["items"] is inner.at(mv.Version(1, 9))


def test_history_lists_each_schema_from_its_version():
    schema = Versioned(
        obj({"a": {"type": "string"}}), (mv.Version(1, 3), adding(b={"type": "integer"}))
    )
    assert [(since, sorted(s["properties"])) for since, s in schema.history()] == [
        (None, ["a"]),
        (mv.Version(1, 3), ["a", "b"]),
    ]
