"""Audit parameters checked against a strategy's ``parameters_spec``, as upstream does.

A JSON-Schema Draft 4 validator with two changes at every ``properties`` keyword,
nested ones included (doc/watcher-api.md §3.3 step 6): a missing property that has a
``default`` gets it (and the defaults are what is stored), and when the ``properties``
map is not empty, an instance key it does not list is refused, whatever
``additionalProperties`` says.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft4Validator, ValidationError, validators

from placement.actionplans.errors import AuditParameterNotAllowed, InvalidAuditParameters

NO_SPEC_MESSAGE = (
    "Specify parameters but no predefined strategy for audit, "
    "or no parameter spec in predefined strategy"
)

_draft4_properties = Draft4Validator.VALIDATORS["properties"]


def _defaults_then_strict_properties(
    validator: Any, properties: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """Insert defaults, refuse unlisted keys, then validate the properties as Draft 4."""
    if validator.is_type(instance, "object"):
        for name, subschema in properties.items():
            if "default" in subschema and name not in instance:
                instance[name] = copy.deepcopy(subschema["default"])
        if properties:
            for key in instance:
                if key not in properties:
                    raise AuditParameterNotAllowed(key)
    yield from _draft4_properties(validator, properties, instance, schema)


StrictDraft4Validator = validators.extend(
    Draft4Validator, {"properties": _defaults_then_strict_properties}
)


def apply_strategy_parameters(spec: Mapping[str, Any], params: Mapping[str, Any]) -> dict:
    """The parameters to store for an audit of a strategy whose schema is ``spec``.

    An empty spec (or no strategy: pass ``{}``) accepts only empty parameters. The
    input is not modified; the result carries the inserted defaults. Raises
    AuditParameterNotAllowed for an unlisted key and InvalidAuditParameters with
    jsonschema's full text for any other failure.
    """
    if not spec:
        if params:
            raise InvalidAuditParameters(NO_SPEC_MESSAGE)
        return {}
    result = copy.deepcopy(dict(params))
    error = next(StrictDraft4Validator(spec).iter_errors(result), None)
    if error is not None:
        raise InvalidAuditParameters(f"Invalid parameters for strategy: {error}")
    return result
