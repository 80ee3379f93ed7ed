"""Check bodies and queries against :mod:`placement.schemas.actionplans`, with
upstream Watcher's messages (its framework's wording for bad attributes)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from oslo_utils import uuidutils

from placement import errors
from placement.handlers import intake

_FORMATS = jsonschema.FormatChecker(formats=())


@_FORMATS.checks("uuid")
def _is_uuid(value: Any) -> bool:
    """A text must be a uuid; other values are the ``type`` keyword's business (as
    jsonschema's own formats), so a nullable uuid may be ``null``."""
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


def invalid_field(name: str, value: Any, reason: str) -> errors.BadRequest:
    """Upstream's 400 for one attribute or argument with a bad value."""
    return errors.BadRequest(
        f"Invalid input for field/attribute {name}. Value: '{value}'. {reason}"
    )


def uuid_field(name: str, value: str) -> str:
    """``value`` if it is a uuid, else upstream's 400 naming ``name``."""
    if not uuidutils.is_uuid_like(value):
        raise invalid_field(
            name, value, f"unable to convert to uuid. Error: Expected a uuid but received {value}"
        )
    return value


def read_json(raw: bytes) -> Any:
    """The body parsed as JSON; 400 with upstream's text otherwise (and for
    what :func:`intake.parse_json` refuses beyond it, with the reason)."""
    try:
        return intake.parse_json(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise errors.BadRequest("Request is not in valid JSON format") from None
    except ValueError as exc:
        raise errors.BadRequest(f"Request is not in valid JSON format: {exc}") from None


def check_query(params: dict[str, str], schema: dict[str, Any]) -> None:
    """Unknown arguments first, then each value against its property."""
    properties = schema["properties"]
    for name in params:
        if name not in properties:
            raise errors.BadRequest(f'Unknown argument: "{name}"')
    _check_values(params, properties)


def check_object(data: Any, schema: dict[str, Any], argument: str) -> None:
    """A body object: unknown, read-only and missing attributes, then values."""
    if not isinstance(data, dict):
        raise errors.BadRequest(f"Invalid input for argument {argument}: a JSON object is needed")
    properties = schema["properties"]
    for name in data:
        if name not in properties:
            raise errors.BadRequest(f"Unknown attribute for argument {argument}: {name}")
    for name, value in data.items():
        if properties[name].get("readOnly"):
            raise invalid_field(name, value, "Cannot set read only field.")
    for name in schema.get("required", ()):
        if name not in data:
            raise invalid_field(name, None, "Mandatory field missing.")
    _check_values(data, properties)


def check_document(data: Any, schema: dict[str, Any], what: str) -> None:
    """Any other body (a JSON-Patch list): jsonschema's own explanation."""
    error = intake.schema_error(jsonschema.Draft4Validator(schema, format_checker=_FORMATS), data)
    if error is not None:
        raise errors.BadRequest(f"Invalid {what}: {error.message}")


def _check_values(data: dict[str, Any], properties: dict[str, Any]) -> None:
    for name, value in data.items():
        schema = properties[name]
        validator = jsonschema.Draft4Validator(schema, format_checker=_FORMATS)
        error = intake.schema_error(validator, value)
        if error is not None:
            # Only our own reasons are templates: jsonschema's may hold braces.
            template = schema.get("invalid")
            reason = error.message if template is None else template.format(value=value)
            raise invalid_field(name, value, reason)
