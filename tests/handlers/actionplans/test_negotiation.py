"""The infra-optim microversion rules of ``/v1`` and the one error renderer's two shapes."""

from __future__ import annotations

import json

import pytest

from placement import errors
from placement import microversion as mv


@pytest.mark.parametrize(
    "header, expected",
    [
        (None, (1, 0)),
        ("", (1, 0)),
        ("placement 1.30", (1, 0)),
        ("infra-optim abc", (1, 0)),
        ("infra-optim 1", (1, 0)),
        ("infra-optim 1.", (1, 0)),
        ("INFRA-OPTIM 1.5", (1, 5)),
        ("infra-optim latest", mv.INFRA_OPTIM_MAX_VERSION),
        ("infra-optim 1.7", (1, 7)),
        ("infra-optim 1.1, compute 2.1, infra-optim 1.4", (1, 4)),
    ],
)
def test_accepted(header, expected):
    assert mv.parse_infra_optim(header) == expected


@pytest.mark.parametrize(
    "value, message",
    [
        ("1.8", "Version 1.8 was requested but the minor version is not supported"),
        ("1.10", "Version 1.10 was requested"),
        ("2.0", "Mutually exclusive versions requested. Version 2.0 requested"),
        ("0.9", "Mutually exclusive versions requested. Version 0.9 requested"),
    ],
)
def test_unacceptable(value, message):
    with pytest.raises(mv.UnacceptableVersion, match=message) as caught:
        mv.parse_infra_optim(f"infra-optim {value}")
    assert str(caught.value).endswith("The supported version range is: [1.0, 1.7].")


def test_three_parts_are_malformed():
    with pytest.raises(mv.MalformedVersion, match="Invalid value for OpenStack-API-Version"):
        mv.parse_infra_optim("infra-optim 1.2.3")


def test_placement_ignores_infra_optim_entries():
    assert mv.parse("infra-optim 1.7, placement 1.12") == (1, 12)
    assert mv.parse("infra-optim 1.2.3") == (1, 0)


@pytest.mark.parametrize(
    "path, ours", [("/v1", True), ("/v1/goals", True), ("/v10", False), ("/", False)]
)
def test_which_paths_are_watchers(path, ours):
    assert mv.is_infra_optim_path(path) is ours


def _decoded(body: bytes) -> dict:
    """What python-watcherclient does: decode the body, then ``error_message`` again."""
    outer = json.loads(body)
    assert list(outer) == ["error_message"]
    assert isinstance(outer["error_message"], str)
    return json.loads(outer["error_message"])


@pytest.mark.parametrize(
    "error, faultcode",
    [
        (errors.BadRequest("Limit must be positive"), "Client"),
        (errors.Conflict("taken"), "Client"),
        (errors.InternalError("Uncaught exception"), "Server"),
    ],
)
def test_v1_fault_body(error, faultcode):
    content_type, body = errors.render(
        error,
        {"PATH_INFO": "/v1/goals", "HTTP_ACCEPT": "text/html"},
        request_id="r",
        with_code=True,
    )
    assert content_type == "application/json"
    assert _decoded(body) == {
        "faultcode": faultcode,
        "faultstring": error.message,
        "debuginfo": None,
    }


def test_v1_message_defaults_to_the_status_explanation():
    _, body = errors.render(
        errors.NotFound(""), {"PATH_INFO": "/v1/nosuch"}, request_id=None, with_code=False
    )
    assert _decoded(body)["faultstring"] == "The resource could not be found."


def test_v1_version_error_body():
    error = errors.InfraOptimVersionError("Invalid value for OpenStack-API-Version header")
    _, body = errors.render(error, {"PATH_INFO": "/v1/goals"}, request_id=None, with_code=False)
    assert _decoded(body) == {
        "code": 406,
        "title": "Not Acceptable",
        "description": "Invalid value for OpenStack-API-Version header",
    }


def test_v1_version_error_as_html_when_preferred():
    error = errors.InfraOptimVersionError("Version 1.8 was requested")
    environ = {"PATH_INFO": "/v1/goals", "HTTP_ACCEPT": "text/html"}
    content_type, body = errors.render(error, environ, request_id=None, with_code=False)
    assert content_type == "application/json"
    page = json.loads(body)["error_message"]
    assert page.startswith("<html>") and "<h1>406 Not Acceptable</h1>" in page
    assert "Version 1.8 was requested" in page


def test_placement_paths_keep_placement_errors():
    content_type, body = errors.render(
        errors.BadRequest("bad"), {"PATH_INFO": "/traits"}, request_id="r", with_code=True
    )
    assert content_type == "application/json"
    assert json.loads(body)["errors"][0]["code"] == errors.DEFAULT
