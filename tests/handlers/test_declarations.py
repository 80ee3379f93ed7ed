"""Responders' declarations: what the OpenAPI description is built from."""

from __future__ import annotations

import pytest

from placement import errors
from placement import microversion as mv
from placement.handlers import preamble, resource_class
from placement.schemas import NO_BODY


def test_a_step_must_say_what_it_refuses():
    def unmarked(call):
        raise errors.BadRequest("no")

    with pytest.raises(TypeError, match="does not say what it refuses"):
        preamble.refusals(unmarked)
    assert preamble.refusals(preamble.refusing(400, 404)(unmarked)) == {400, 404}


def test_the_declaration_survives_the_resource_wrapper():
    (declared,) = preamble.declarations(resource_class.ResourceClasses.on_get)
    assert declared.accepts_json and not declared.sends_json
    assert declared.since == preamble.since(mv.RESOURCE_CLASSES)
    assert set(declared.returns) == {200}


def test_one_method_serving_two_operations_declares_both():
    older, newer = preamble.declarations(resource_class.ResourceClass.on_put)
    assert (older.first, older.until) == (None, mv.RESOURCE_CLASS_PUT_CREATE)
    assert (newer.first, newer.until) == (mv.RESOURCE_CLASS_PUT_CREATE, None)
    assert older.body is not None and newer.body is None
    assert newer.returns == {201: NO_BODY, 204: NO_BODY}
