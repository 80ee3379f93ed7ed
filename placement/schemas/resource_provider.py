"""Bodies and query strings of the resource provider routes, per microversion."""

from __future__ import annotations

from placement import microversion as mv
from placement.schemas import Versioned, adding, obj

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
