"""JSON schemas for request bodies, query strings and responses, per microversion.

Every schema a handler validates against is a :class:`Versioned`: the schema
of the first version, then each microversion's change to it, stated once.
Handlers ask ``SCHEMA.at(version)`` with the request's version and never
choose between schemas themselves. Responses are described the same way,
for the API description (``placement/wsgi/openapi.py``), and declared by
each responder (``returns=``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from placement import microversion as mv

Schema = dict[str, Any]
#: A microversion's change: takes a private copy of the previous schema
#: (it may edit it) and returns the new one.
Change = Callable[[Schema], Schema]


class Versioned:
    """One body or query schema through the microversions.

    ``Versioned(first, (mv.A, change_a), (mv.B, change_b))`` is ``first``
    below A, ``change_a(first)`` from A, ``change_b(change_a(first))`` from B.
    Several changes may share a version; the last of them wins there.
    """

    def __init__(self, first: Schema, *changes: tuple[mv.Version, Change]) -> None:
        self._first = first
        self._since: list[tuple[mv.Version, Schema]] = []
        previous = first
        for since, change in changes:
            if self._since and since < self._since[-1][0]:
                raise ValueError(f"changes out of order: {since} after {self._since[-1][0]}")
            previous = changed(previous, change)
            self._since.append((since, previous))

    def at(self, version: mv.Version) -> Schema:
        """The schema at microversion ``version``."""
        for since, schema in reversed(self._since):
            if version >= since:
                return schema
        return self._first

    def history(self) -> list[tuple[mv.Version | None, Schema]]:
        """Each schema with the version it starts at (None: the first)."""
        return [(None, self._first), *self._since]

    def map(self, shape: Callable[[Schema], Schema]) -> Versioned:
        """A schema that wraps this one: ``shape(self.at(v))`` at every version."""
        mapped = Versioned(shape(self._first))
        mapped._since = [(since, shape(schema)) for since, schema in self._since]
        return mapped


#: The "schema" of an answer without a body (a 204, a 201 with only a ``Location``).
EMPTY: Schema = {"$comment": "no body"}
NO_BODY = Versioned(EMPTY)
#: The "schema" of a status a route does not answer at some versions (no
#: answer matches it), e.g. 200 to ``POST /resource_providers`` before 1.20.
NOT_ANSWERED: Schema = {"not": {}}


def changed(schema: Schema, *changes: Change) -> Schema:
    """``schema`` with ``changes`` made in turn, each to a copy: ``schema`` stays as it is."""
    for change in changes:
        schema = change(copy.deepcopy(schema))
    return schema


def adding(**properties: Schema) -> Change:
    """The change that allows new (optional) properties."""

    def change(schema: Schema) -> Schema:
        schema["properties"].update(copy.deepcopy(properties))
        return schema

    return change


def requiring(**properties: Schema) -> Change:
    """The change that adds properties a body must have."""

    def change(schema: Schema) -> Schema:
        adding(**properties)(schema)
        schema["required"] += list(properties)
        return schema

    return change


#: The ``links`` of an answer: ``{"rel", "href"}`` objects.
LINKS: Schema = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"rel": {"type": "string"}, "href": {"type": "string"}},
        "required": ["rel", "href"],
        "additionalProperties": False,
    },
}
#: Generations, counts and amounts in answers.
INTEGER: Schema = {"type": "integer"}


def closed(**properties: Schema) -> Schema:
    """An answer's object: every one of ``properties``, and no other."""
    return obj(properties, *properties)


def mapping(values: Schema) -> Schema:
    """An object of any keys (names, uuids) whose values match ``values``."""
    return {"type": "object", "additionalProperties": values}


def obj(properties: Schema, *required: str) -> Schema:
    """A closed object: these properties only, ``required`` among them."""
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema
