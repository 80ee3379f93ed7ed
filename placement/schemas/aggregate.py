"""Bodies of PUT /resource_providers/{uuid}/aggregates."""

from __future__ import annotations

import copy

_UUID_LIST = {
    "type": "array",
    "items": {"type": "string", "format": "uuid"},
    "uniqueItems": True,
}

#: 1.1 - 1.18: a bare list of aggregate uuids.
PUT_AGGREGATES = copy.deepcopy(_UUID_LIST)

#: 1.19: the list plus the provider generation the client saw.
PUT_AGGREGATES_1_19 = {
    "type": "object",
    "properties": {
        "aggregates": copy.deepcopy(_UUID_LIST),
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["aggregates", "resource_provider_generation"],
    "additionalProperties": False,
}
