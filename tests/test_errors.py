"""The error document and its negotiation."""

import json

from placement import errors


def _render(error, accept="application/json", with_code=True, **environ):
    environ = {"HTTP_ACCEPT": accept, **environ}
    return errors.render(error, environ, request_id="req-1", with_code=with_code)


def test_json_document_has_upstream_members():
    content_type, body = _render(errors.Conflict("Boom.", code=errors.CONCURRENT_UPDATE))
    assert content_type == "application/json"
    doc = json.loads(body)["errors"][0]
    assert doc == {
        "status": 409,
        "title": "Conflict",
        "code": "placement.concurrent_update",
        "request_id": "req-1",
        "detail": "There was a conflict when trying to complete your request.\n\n Boom.  ",
    }


def test_code_only_when_asked_for():
    _, body = _render(errors.NotFound("x"), with_code=False)
    assert "code" not in json.loads(body)["errors"][0]


def test_default_code():
    _, body = _render(errors.BadRequest("x"))
    assert json.loads(body)["errors"][0]["code"] == errors.DEFAULT


def test_newlines_in_messages_are_flattened():
    _, body = _render(errors.BadRequest("a\nb"))
    assert json.loads(body)["errors"][0]["detail"].endswith(" a b  ")


def test_method_not_allowed_names_the_method():
    _, body = _render(errors.MethodNotAllowed("GET"), REQUEST_METHOD="PATCH")
    detail = json.loads(body)["errors"][0]["detail"]
    assert detail == (
        "The method PATCH is not allowed for this resource. \n\n "
        "The method specified is not allowed for this resource."
    )


def test_unsupported_media_type_names_the_type():
    error = errors.UnsupportedMediaType(
        "The media type text/plain is not supported, use application/json"
    )
    _, body = _render(error, CONTENT_TYPE="text/plain")
    assert json.loads(body)["errors"][0]["detail"].startswith(
        "The request media type text/plain is not supported by this server. \n\n "
    )


def test_html_when_preferred():
    content_type, body = _render(errors.NotFound("gone"), accept="text/html")
    assert content_type.startswith("text/html")
    assert b"<title>404 Not Found</title>" in body


def test_plain_when_neither_json_nor_html():
    content_type, body = _render(errors.NotFound("gone"), accept="text/plain")
    assert content_type.startswith("text/plain")
    assert body.startswith(b"404 Not Found")


def test_json_when_html_ranks_lower():
    content_type, _ = _render(errors.NotFound("x"), accept="application/json, text/html;q=0.5")
    assert content_type == "application/json"
