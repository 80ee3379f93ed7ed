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


def _page(status_line: str, body: str) -> bytes:
    return (
        f"<html>\n <head>\n  <title>{status_line}</title>\n </head>\n <body>\n"
        f"  <h1>{status_line}</h1>\n  {body}\n </body>\n</html>"
    ).encode()


def test_not_acceptable_page_has_upstream_line_breaks():
    _, body = _render(errors.NotAcceptable("Only application/json is provided"), accept="text/html")
    assert body == _page(
        "406 Not Acceptable",
        "The resource could not be generated that was acceptable to your browser\n"
        "(content of type text/html. <br /><br />\nOnly application/json is provided",
    )


def test_method_not_allowed_page_has_upstream_line_breaks():
    _, body = _render(errors.MethodNotAllowed("GET"), accept="text/html", REQUEST_METHOD="PUT")
    assert body == _page(
        "405 Method Not Allowed",
        "The method PUT is not allowed for this resource. <br /><br />\n"
        "The method specified is not allowed for this resource.",
    )


def test_unsupported_media_type_page_has_upstream_line_breaks():
    error = errors.UnsupportedMediaType("The media type x/y is not supported")
    _, body = _render(error, accept="text/html", CONTENT_TYPE="x/y")
    assert body == _page(
        "415 Unsupported Media Type",
        "The request media type x/y is not supported by this server.\n<br /><br />\n"
        "The media type x/y is not supported",
    )


def test_other_pages_end_with_blank_lines():
    _, body = _render(errors.NotFound("gone"), accept="text/html")
    assert body == _page("404 Not Found", "The resource could not be found.<br /><br />\ngone\n\n")


def test_html_pages_are_ascii_with_character_references():
    _, body = _render(errors.NotFound("<é☃>"), accept="text/html")
    assert b"&lt;&#233;&#9731;&gt;" in body


def test_text_forms_drop_tags_as_upstream():
    error = errors.UnsupportedMediaType("The media type text/<b>x</b> is not supported")
    _, body = _render(error, CONTENT_TYPE="text/<b>x</b>")
    assert json.loads(body)["errors"][0]["detail"] == (
        "The request media type text/x is not supported by this server. \n\n "
        "The media type text/x is not supported"
    )
    _, body = _render(errors.NotFound("a<br>b"), accept="text/plain")
    assert body.endswith(b"\n\n a\nb  ")


def test_unparsable_accept_accepts_everything_and_prefers_html():
    for accept in ("\xff;;q=abc", "application/json;q=abc", "application/json;q=1.5", ",x/y"):
        assert errors.accept_quality(accept, "application/json") == 1.0
        assert _render(errors.NotFound("x"), accept=accept)[0].startswith("text/html")


def test_first_of_equally_specific_ranges_wins():
    assert errors.accept_quality("application/json;q=0, application/json", "application/json") == 0
    assert errors.accept_quality("application/json, application/json;q=0", "application/json") == 1


def test_a_range_with_parameters_does_not_match_the_bare_type():
    assert errors.accept_quality("application/json;charset=utf-8", "application/json") == 0
    assert errors.accept_quality("application/*;charset=utf-8", "application/json") == 1
    content_type, _ = _render(errors.NotFound("x"), accept="application/json, text/html;level=1")
    assert content_type == "application/json"


def test_more_specific_range_overrides_wildcards():
    accept = "*/*;q=0.9, application/*;q=0.1, text/html;q=0"
    assert errors.accept_quality(accept, "application/json") == 0.1
    assert errors.accept_quality(accept, "text/html") == 0
    assert errors.accept_quality(accept, "image/png") == 0.9


def test_a_long_message_is_cut_saying_how_much_more_there_was():
    error = errors.BadRequest("x" * (errors.MAX_MESSAGE + 5))
    assert error.message == "x" * errors.MAX_MESSAGE + "... (5 more characters)"
    _, body = _render(error)
    assert len(body) < errors.MAX_MESSAGE + 500
    _, body = _render(error, accept="text/plain")
    assert body.endswith(b"... (5 more characters)  ")


def test_a_message_of_exactly_the_limit_is_whole():
    assert errors.BadRequest("x" * errors.MAX_MESSAGE).message == "x" * errors.MAX_MESSAGE


def test_a_lone_surrogate_is_shown_escaped_in_every_format():
    error = errors.BadRequest("Got: \ud800")
    assert error.message == "Got: \\ud800"
    for accept in ("application/json", "text/html", "text/plain"):
        _, body = _render(error, accept=accept)
        assert b"\\ud800" in body or b"\\\\ud800" in body


def test_a_long_message_is_cut_under_v1_too():
    _, body = _render(errors.BadRequest("y" * 20_000), PATH_INFO="/v1/goals")
    fault = json.loads(json.loads(body)["error_message"])
    assert fault["faultstring"].endswith("... (10000 more characters)")
