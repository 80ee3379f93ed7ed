"""Schemas for resource class bodies (and the name in a 1.7+ PUT path), and answers."""

from __future__ import annotations

from placement.schemas import LINKS, Versioned, closed, obj

#: Names users may give resource classes.
CUSTOM_NAME_PATTERN = "^CUSTOM_[A-Z0-9_]+$"

#: ``POST /resource_classes`` and the 1.2–1.6 rename ``PUT`` body. From 1.7
#: the ``PUT`` path name is validated as if it were this body.
#: A custom class's name.
CUSTOM_NAME = {"type": "string", "pattern": CUSTOM_NAME_PATTERN, "maxLength": 255}

NAME_BODY = Versioned(obj({"name": CUSTOM_NAME}, "name"))

#: One class as the API shows it (``GET /resource_classes/{name}``, the 1.2–1.6 rename).
RESOURCE_CLASS = Versioned(closed(name={"type": "string"}, links=LINKS))

#: ``GET /resource_classes``.
LIST_RESPONSE = RESOURCE_CLASS.map(
    lambda item: closed(resource_classes={"type": "array", "items": item})
)
