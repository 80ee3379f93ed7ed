"""What a client sends: strict JSON, bounded bodies, storable text and numbers."""

from __future__ import annotations

import io
import json
import time

import falcon.testing
import jsonschema
import pytest

from placement import errors
from placement.handlers import intake
from tests import rig


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_constants_that_are_not_json_are_refused(constant):
    with pytest.raises(ValueError, match=f"{constant} is not a JSON number"):
        intake.parse_json(f'{{"allocation_ratio": {constant}}}'.encode())


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 33 + b"]" * 33,
        b'{"a":' * 33 + b"1" + b"}" * 33,
        b"[" * 1000,
        b"[" * 100_000,
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_nesting_deeper_than_the_limit_is_refused(raw):
    with pytest.raises(ValueError, match="nested more than 32 levels deep"):
        intake.parse_json(raw)


def test_nesting_up_to_the_limit_is_parsed():
    assert intake.parse_json(b"[" * 32 + b"]" * 32) is not None
    assert intake.parse_json(b'{"a": [1.5, {"b": null}]}') == {"a": [1.5, {"b": None}]}


def test_an_empty_body_is_malformed_as_before():
    with pytest.raises(json.JSONDecodeError):
        intake.parse_json(b"")


@pytest.mark.parametrize(
    "text,reason",
    [
        ("a\x00b", "the character U+0000 (NUL) is not allowed"),
        ("\ud800", "U+D800 is a lone surrogate, not a character"),
        ("\udfff\ud800", "U+DFFF is a lone surrogate, not a character"),
    ],
)
def test_text_no_database_stores_names_the_field(text, reason):
    with pytest.raises(errors.BadRequest) as caught:
        intake.require_storable("name", text)
    assert caught.value.message == f"Invalid name: {reason}"


def test_characters_beyond_the_bmp_only_on_a_three_byte_database():
    intake.require_storable("name", "\U0001f600")
    with pytest.raises(errors.BadRequest, match="U\\+1F600 cannot be stored"):
        intake.require_storable("name", "\U0001f600", three_byte=True)


@pytest.mark.parametrize(
    "body,message",
    [
        ({"a": {"b": ["ok", "x\x00"]}}, "Invalid a.b: the character U+0000"),
        ({"a": {"\ud800": 1}}, "Invalid a: U+D800 is a lone surrogate"),
        ({"ratio": float("-inf")}, "Invalid ratio: -inf is not a finite number"),
        ("\x00", "Invalid body: the character U+0000"),
    ],
)
def test_a_body_is_checked_everywhere(body, message):
    with pytest.raises(errors.BadRequest) as caught:
        intake.require_storable_json(body)
    assert caught.value.message.startswith(message)


def test_storable_bodies_pass():
    intake.require_storable_json(
        {"g": 2**64, "h": -(2**63), "r": 1.5e38, "t": True, "n": None, "s": "é☃\U0001f600"}
    )


def _chunked_request(body: bytes, limit: int | None) -> falcon.Request:
    """A request whose body comes without Content-Length, as gunicorn hands a chunked one."""
    environ = falcon.testing.create_environ(method="POST", path="/")
    environ.pop("CONTENT_LENGTH", None)
    environ["wsgi.input"] = io.BytesIO(body)
    environ["wsgi.input_terminated"] = True
    req = falcon.Request(environ)
    if limit is not None:
        req.context.max_body_size = limit
    return req


def test_a_chunked_body_is_read_up_to_the_limit():
    assert intake.read_body(_chunked_request(b"x" * 100, 100)) == b"x" * 100
    assert intake.read_body(_chunked_request(b"x" * 1000, None)) == b"x" * 1000


def test_a_chunked_body_over_the_limit_is_a_413_having_read_one_byte_more():
    req = _chunked_request(b"x" * 1000, 100)
    with pytest.raises(errors.RequestEntityTooLarge) as caught:
        intake.read_body(req)
    assert caught.value.status == 413
    assert "larger than the 100 bytes" in caught.value.message
    assert req.stream.tell() == 101


@pytest.fixture(scope="module")
def api_app():
    with rig.placement_app("sqlite") as (app, _conf):
        yield app


def test_a_huge_schema_failure_is_answered_quickly_and_cut(api_app):
    body = json.dumps(list(range(120_000))).encode()  # within 1 MiB
    start = time.monotonic()
    reply = rig.request(
        api_app,
        "POST",
        "/resource_providers",
        {"X-Auth-Token": "admin", "Content-Type": "application/json"},
        body,
    )
    assert time.monotonic() - start < 5
    assert reply.status == 400
    detail = reply.json()["errors"][0]["detail"]
    assert "JSON does not validate: [0, 1, 2" in detail
    assert "more characters)" in detail
    assert len(reply.body) < 3 * errors.MAX_MESSAGE


def test_only_the_first_failures_are_weighed():
    validator = jsonschema.Draft202012Validator({"type": "array", "items": {"type": "string"}})
    error = intake.schema_error(validator, list(range(10 * intake.MOST_ERRORS_WEIGHED)))
    assert error is not None and error.path[0] < intake.MOST_ERRORS_WEIGHED
    assert intake.schema_error(validator, ["a", "b"]) is None
