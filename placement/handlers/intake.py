"""What a client sends, before and after its schema: a body of bounded size,
JSON this service can work with, and text and numbers its database can store.

Upstream Placement hands bodies to Python's ``json`` module as they are: it
accepts ``NaN`` and ``Infinity``, recurses once per nesting level (a deeply
nested body is a ``RecursionError``), and passes the database whatever the
schema let through: a NUL character, which PostgreSQL cannot store, or a lone
UTF-16 surrogate (``"\\ud800"``), which no database can. Each of those is a
500 there. Here each is a 400 saying what was wrong, before anything is
written; Placement's and Watcher's routes (``/v1``) share these rules and
word the outer message each as their API does.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

import falcon
import jsonschema

from placement import errors

#: The deepest nesting of arrays and objects a body may have. Placement's
#: deepest documents (reshaper) have six levels.
MAX_DEPTH = 32

#: Schema failures weighed to pick the one reported: a body failing more
#: (a list of 100,000 wrong items) is machine-made, and weighing them all
#: would take seconds.
MOST_ERRORS_WEIGHED = 1000

# A NUL or a lone surrogate, anywhere; on a 3-byte UTF-8 database, also any
# character beyond U+FFFF.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_UNSTORABLE_IN_3BYTE = re.compile("[\x00\ud800-\udfff\U00010000-\U0010ffff]")


# --- the body -------------------------------------------------------------------


def read_body(req: falcon.Request) -> bytes:
    """The request body's bytes, at most ``req.context.max_body_size`` of them.

    Without ``Content-Length`` (a chunked body) the input is read until the
    server says it ends (``wsgi.input_terminated``, as gunicorn does), as
    upstream reads it; otherwise ``Content-Length`` bytes, none without it.
    A declared length over the limit was refused before routing
    (``wsgi/limits.py``); a chunked body over it is refused here, having
    read one byte more than the limit and no further.
    """
    limit: int | None = getattr(req.context, "max_body_size", None)
    if req.content_length is None and req.env.get("wsgi.input_terminated"):
        raw = req.stream.read() if limit is None else req.stream.read(limit + 1)
    else:
        raw = req.bounded_stream.read()
    if limit is not None and len(raw) > limit:
        raise too_large(limit)
    return raw


def too_large(limit: int) -> errors.PlacementError:
    """The 413 of a body over ``[api] max_request_body_size``."""
    return errors.RequestEntityTooLarge(
        f"The request body is larger than the {limit} bytes this service accepts."
    )


def parse_json(raw: bytes) -> Any:
    """``raw`` parsed as JSON, or a ``ValueError`` saying why it is not JSON we take.

    Beyond Python's own parser: ``NaN``, ``Infinity`` and ``-Infinity`` are
    refused (they are not JSON), and so is nesting deeper than
    :data:`MAX_DEPTH` (deeper documents would exhaust the parser's or the
    validator's recursion).
    """
    try:
        data = json.loads(raw.decode("utf-8") if raw else "", parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(_too_deep()) from None
    if _deeper_than(data, MAX_DEPTH):
        raise ValueError(_too_deep())
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _too_deep() -> str:
    return f"arrays and objects are nested more than {MAX_DEPTH} levels deep"


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (no recursion)."""
    stack = [(data, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children)
    return False


def schema_error(
    validator: jsonschema.protocols.Validator, data: Any
) -> jsonschema.ValidationError | None:
    """jsonschema's ``best_match`` of ``data``'s failures (upstream's choice of
    the one to report), among the first :data:`MOST_ERRORS_WEIGHED`; None
    when ``data`` is valid."""
    errors_found = itertools.islice(validator.iter_errors(data), MOST_ERRORS_WEIGHED)
    return jsonschema.exceptions.best_match(errors_found)


# --- what the database can store -----------------------------------------------


def require_storable(field: str, text: str, *, three_byte: bool = False) -> None:
    """400 naming ``field`` when ``text`` holds a character no database stores.

    That is a NUL (PostgreSQL refuses it) or a lone UTF-16 surrogate (not a
    character: it cannot be encoded at all); with ``three_byte``, on a
    database storing 3-byte UTF-8 (MySQL's utf8mb3), also a character beyond
    U+FFFF. Upstream answers 500 for each.
    """
    found = (_UNSTORABLE_IN_3BYTE if three_byte else _UNSTORABLE).search(text)
    if found is None:
        return
    code = ord(found.group())
    if code == 0:
        reason = "the character U+0000 (NUL) is not allowed"
    elif 0xD800 <= code <= 0xDFFF:
        reason = f"U+{code:04X} is a lone surrogate, not a character"
    else:
        reason = (
            f"the character U+{code:X} cannot be stored by this database, "
            "whose text is 3-byte UTF-8 (utf8mb3)"
        )
    raise errors.BadRequest(f"Invalid {field}: {reason}")


def require_storable_json(data: Any, *, three_byte: bool = False) -> None:
    """Check a validated body before it reaches the database: every string and
    key (:func:`require_storable`) and every number finite (``-1e999`` parses
    as minus infinity). ``field`` in the 400 is the dotted path of keys down
    to the value (``body`` at the top). Integers of any size are left to the
    schema and the object layer (a generation beyond 64 bits is a conflict,
    as upstream's)."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, field = stack.pop()
        shown = field or "body"
        if isinstance(item, str):
            require_storable(shown, item, three_byte=three_byte)
        elif isinstance(item, float) and not math.isfinite(item):
            raise errors.BadRequest(f"Invalid {shown}: {item} is not a finite number")
        elif isinstance(item, list):
            stack.extend((child, field) for child in item)
        elif isinstance(item, dict):
            for key, value in item.items():
                require_storable(shown, key, three_byte=three_byte)
                stack.append((value, f"{field}.{key}" if field else key))
