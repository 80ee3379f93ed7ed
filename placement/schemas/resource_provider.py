"""Bodies, query strings and answers of the resource provider routes, per microversion."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import (
    EMPTY,
    INTEGER,
    LINKS,
    NOT_ANSWERED,
    Versioned,
    adding,
    closed,
    obj,
    requiring,
)

_UUID = {"type": "string", "format": "uuid"}
_NAME = {"type": "string", "maxLength": 200}
_PARENT = {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}

#: 1.14: a provider may be created, or moved, under a parent.
_NESTED = (mv.NESTED_PROVIDERS, adding(parent_provider_uuid=_PARENT))

#: ``POST /resource_providers``.
POST_PROVIDER = Versioned(obj({"name": _NAME, "uuid": _UUID}, "name"), _NESTED)

#: ``PUT /resource_providers/{uuid}``.
PUT_PROVIDER = Versioned(obj({"name": _NAME}, "name"), _NESTED)

#: ``GET /resource_providers``: each microversion adds one filter.
LIST_QUERY = Versioned(
    obj({"name": {"type": "string"}, "uuid": _UUID}),
    (mv.PROVIDER_MEMBER_OF, adding(member_of={"type": "string"})),
    (mv.PROVIDER_RESOURCES, adding(resources={"type": "string"})),
    (mv.NESTED_PROVIDERS, adding(in_tree=_UUID)),
    (mv.PROVIDER_REQUIRED, adding(required={"type": "string"})),
)

#: One provider as the API shows it; 1.14 adds its tree.
PROVIDER = Versioned(
    closed(uuid={"type": "string"}, name={"type": "string"}, generation=INTEGER, links=LINKS),
    (
        mv.NESTED_PROVIDERS,
        requiring(
            parent_provider_uuid={"type": ["string", "null"]},
            root_provider_uuid={"type": "string"},
        ),
    ),
)

#: ``GET /resource_providers``.
LIST_RESPONSE = PROVIDER.map(
    lambda item: closed(resource_providers={"type": "array", "items": item})
)

#: ``POST /resource_providers``: 201 with only a ``Location`` before 1.20,
#: then 200 with the provider.
CREATED = Versioned(EMPTY, (mv.PROVIDER_CREATE_RETURNS_BODY, lambda _: NOT_ANSWERED))
CREATED_SHOWN = Versioned(
    NOT_ANSWERED,
    (mv.PROVIDER_CREATE_RETURNS_BODY, lambda _: PROVIDER.at(mv.PROVIDER_CREATE_RETURNS_BODY)),
)
