"""Real answers held to the OpenAPI description (``placement/wsgi/openapi.py``).

:func:`checked` wraps a WSGI app: every answer to a described operation must
be one the description allows at the answer's microversion (the
``OpenStack-API-Version`` it carries): a success status the operation
declares there, with a body matching that version's schema (or no body), and
an error in the API's error document. The gabbi stories run through it
(``tests/gabbi_fixtures.py``), so every answer they get is checked too.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import jsonschema

from placement import microversion as mv
from placement.wsgi import openapi


@functools.cache
def description() -> dict[str, Any]:
    return openapi.document()


@functools.cache
def _templates() -> list[tuple[re.Pattern[str], str]]:
    return [
        (re.compile("^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(template)) + "$"), template)
        for template in description()["paths"]
    ]


def _operation(method: str, path: str) -> tuple[str, dict[str, Any]] | None:
    for pattern, template in _templates():
        if pattern.match(path):
            operation = description()["paths"][template].get(method.lower())
            return None if operation is None else (template, operation)
    return None


def _version(headers: dict[str, str]) -> mv.Version | None:
    value = headers.get("openstack-api-version", "")
    match = re.fullmatch(r"\S+ (\d+)\.(\d+)", value)
    return mv.Version(int(match[1]), int(match[2])) if match else None


def _success_schemas(operation: dict[str, Any], version: mv.Version) -> dict[str, Any] | None:
    """Success status → body schema (None: no body) at ``version``; None when
    the route does not exist there."""
    for shape in operation.get("x-openstack-microversions", ()):
        low, high = (
            mv.Version(*map(int, shape[k].split("."))) for k in ("min_version", "max_version")
        )
        if low <= version <= high:
            return None if "refused" in shape else shape["responses"]
    return {
        status: answer.get("content", {}).get("application/json", {}).get("schema")
        for status, answer in operation["responses"].items()
        if int(status) < 400
    }


def violation(
    method: str, path: str, status: int, headers: dict[str, str], body: bytes
) -> str | None:
    """What is wrong with this answer by the description, or None."""
    found = _operation(method, path)
    version = _version(headers)
    if found is None or version is None or method == "HEAD":
        return None
    template, operation = found
    where = f"{method} {path} ({template}) at {version} answered {status}"
    if status >= 400:
        if not headers.get("content-type", "").startswith("application/json"):
            return None  # an error the client asked for in HTML or text
        error = openapi.api_of(template).error
        schema = description()["components"]["schemas"][error]
    else:
        schemas = _success_schemas(operation, version)
        if schemas is None or str(status) not in schemas:
            return f"{where}: a status the description does not give"
        schema = schemas[str(status)]
        if schema is None:
            return None if body == b"" else f"{where}: a body where none is described"
    try:
        jsonschema.Draft202012Validator(schema).validate(json.loads(body))
    except (ValueError, jsonschema.ValidationError) as exc:
        return f"{where}: {str(exc)[:2000]}"
    return None


def _described(environ: dict) -> bool:
    """Whether the description covers the request: it describes Placement's
    port, where Watcher's endpoint shares only the ``/v1`` paths."""
    return not mv.on_watcher_endpoint(environ) or mv.is_infra_optim_path(environ["PATH_INFO"])


def checked(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """``app``, raising AssertionError for an answer :func:`violation` refuses."""

    def run(environ: dict, start_response: Callable) -> Iterable[bytes]:
        seen: dict[str, Any] = {}

        def recording(status: str, headers: list, exc_info: object = None) -> Any:
            seen["status"] = int(status.split()[0])
            seen["headers"] = {name.lower(): value for name, value in headers}
            return start_response(status, headers, exc_info)

        body = b"".join(app(environ, recording))
        # Read after the call: under /infra-optim the app moved the prefix to
        # SCRIPT_NAME, so PATH_INFO is the path the description names.
        if not _described(environ):
            return [body]
        problem = violation(
            environ["REQUEST_METHOD"],
            environ.get("PATH_INFO", ""),
            seen["status"],
            seen["headers"],
            body,
        )
        if problem is not None:
            raise AssertionError(f"answer outside the OpenAPI description: {problem}")
        return [body]

    return run
