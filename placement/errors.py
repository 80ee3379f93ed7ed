"""Error codes, the errors the service raises, and their one renderer.

Every failure the API reports is a :class:`PlacementError` (or becomes one
at the edge). :func:`render` turns it into upstream's error document:
``{"errors": [{"status", "title", "detail", "code"?, "request_id"}]}``,
negotiated to HTML or plain text when the client prefers those.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from http import HTTPStatus

from placement import microversion

# --- error codes (the ``code`` member, microversion 1.23 and later) -------
DEFAULT = "placement.undefined_code"
CONCURRENT_UPDATE = "placement.concurrent_update"
DUPLICATE_NAME = "placement.duplicate_name"
INVENTORY_INUSE = "placement.inventory.inuse"
PROVIDER_IN_USE = "placement.resource_provider.inuse"
PROVIDER_CANNOT_DELETE_PARENT = "placement.resource_provider.cannot_delete_parent"
RESOURCE_PROVIDER_NOT_FOUND = "placement.resource_provider.not_found"
QUERY_DUPLICATE_KEY = "placement.query.duplicate_key"
QUERY_BAD_VALUE = "placement.query.bad_value"
QUERY_MISSING_VALUE = "placement.query.missing_value"

#: The Content-Type of an HTML error page.
HTML = "text/html; charset=UTF-8"

# The sentence upstream's web framework puts before every message.
_EXPLANATIONS = {
    400: "The server could not comply with the request since it is either "
    "malformed or otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the "
    "document you requested. Either you supplied the wrong credentials (e.g., "
    "bad password), or your browser does not understand how to supply the "
    "credentials required.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    409: "There was a conflict when trying to complete your request.",
    413: "The body of your request was too large for this server.",
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
}


#: The most characters of a message an error document carries. Messages
#: quote the request (a schema error quotes the whole value it refused), so
#: a long one is cut here: a large body never makes a larger answer.
MAX_MESSAGE = 10_000


def echoable(message: str) -> str:
    """``message`` as an error document may carry it: cut to
    :data:`MAX_MESSAGE` characters, saying how many more there were, and a
    lone surrogate (which no encoding holds) as its ``\\udXXX`` escape."""
    if len(message) > MAX_MESSAGE:
        message = f"{message[:MAX_MESSAGE]}... ({len(message) - MAX_MESSAGE} more characters)"
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


class PlacementError(Exception):
    """An error answered to the client with ``status`` and ``code``.

    ``vary`` is False for the errors upstream raises outside its handlers'
    own error handling (policy denials, unknown routes, pre-routing checks):
    those responses carry no ``Vary`` header there. The message is kept
    :func:`echoable`.
    """

    status = 500
    vary = True

    def __init__(
        self, message: str = "", *, code: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        message = echoable(message)
        super().__init__(message)
        self.message = message
        self.code = code or DEFAULT
        self.headers = dict(headers or {})

    def explanation(self, environ: dict) -> str:
        return _EXPLANATIONS.get(self.status, "")

    def body(self, environ: dict, escape: Callable[[str], str]) -> str:
        """The body of upstream's error page: explanation, breaks, message.

        Every format derives from it: HTML escapes the parts, the plain text
        and JSON ``detail`` are :func:`_strip_tags` of the unescaped page.
        """
        return f"{escape(self.explanation(environ))}<br /><br />\n{escape(self.message)}\n\n"

    def detail(self, environ: dict) -> str:
        """The ``detail`` text: explanation, a blank line, the message."""
        return _strip_tags(self.body(environ, str))


class BadRequest(PlacementError):
    status = 400


class Unauthorized(PlacementError):
    """No identity: answered by the auth layer, before any placement handling."""

    status = 401
    vary = False


class Forbidden(PlacementError):
    status = 403
    vary = False


class NotFound(PlacementError):
    status = 404


class EscapedNotFound(NotFound):
    """A not-found no route words: what upstream answers when a lookup's
    not-found escapes its handler (its router turns it into the 404, outside
    the microversion middleware's reach), so without ``Vary``."""

    vary = False


class Conflict(PlacementError):
    status = 409


class RequestEntityTooLarge(PlacementError):
    """A body over ``[api] max_request_body_size``, refused unread."""

    status = 413


class InternalError(PlacementError):
    status = 500


class ServiceUnavailable(PlacementError):
    """The service cannot answer now but will again (e.g. its database is down).

    ``retry_after`` seconds go out as the ``Retry-After`` header.
    """

    status = 503

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, headers={"retry-after": str(retry_after)})


class _OwnPage(PlacementError):
    """Errors whose page upstream words around a request header or the method.

    ``_page`` is the page body with ``{explanation}`` (which names that
    value) and ``{message}``; line breaks and spaces as upstream's.
    """

    _page = "{explanation} <br /><br />\n{message}"

    def body(self, environ: dict, escape: Callable[[str], str]) -> str:
        return self._page.format(
            explanation=escape(self.explanation(environ)), message=escape(self.message)
        )


class MethodNotAllowed(_OwnPage):
    status = 405

    def __init__(
        self,
        allow: str | None = None,
        message: str = "The method specified is not allowed for this resource.",
    ) -> None:
        headers = {"allow": allow} if allow else {}
        super().__init__(message, headers=headers)

    def explanation(self, environ: dict) -> str:
        method = environ.get("REQUEST_METHOD", "")
        return f"The method {method} is not allowed for this resource."


class NotAcceptable(_OwnPage):
    status = 406

    def __init__(self, message: str, *, extra: dict | None = None) -> None:
        super().__init__(message)
        self.extra = dict(extra or {})

    def explanation(self, environ: dict) -> str:
        accept = environ.get("HTTP_ACCEPT", "")
        return (
            "The resource could not be generated that was acceptable to "
            f"your browser\n(content of type {accept}."
        )


class UnsupportedMediaType(_OwnPage):
    status = 415
    _page = "{explanation}\n<br /><br />\n{message}"

    def explanation(self, environ: dict) -> str:
        content_type = environ.get("CONTENT_TYPE") or None
        return f"The request media type {content_type} is not supported by this server."


class InfraOptimVersionError(PlacementError):
    """A ``/v1`` request naming an infra-optim version we do not serve.

    Watcher renders these 406s unlike its other faults: the inner document is
    ``{code, title, description}`` with no ``faultstring``.
    """

    status = 406


def _title(status: int) -> str:
    return HTTPStatus(status).phrase


# RFC 7231's grammar of an ``Accept`` header, which upstream's web framework
# enforces: a header that does not follow it is treated as absent.
_OWS = "[ \t]*"
_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"'
_VALUE = f"(?:{_TOKEN}|{_QUOTED})"
_MEDIA_RANGE = (
    f"(?P<range>{_TOKEN}/{_TOKEN})"
    f"(?P<params>(?:{_OWS};{_OWS}(?![qQ]=){_TOKEN}={_VALUE})*)"
    f"(?:{_OWS};{_OWS}[qQ]=(?P<q>0(?:\\.[0-9]{{0,3}})?|1(?:\\.0{{0,3}})?)"
    f"(?:{_OWS};{_OWS}{_TOKEN}(?:={_VALUE})?)*)?"
)
_MEDIA_RANGE_RE = re.compile(_MEDIA_RANGE)
_ELEMENT = re.sub(r"\?P<\w+>", "", _MEDIA_RANGE)  # the same, unnamed, to repeat
_ACCEPT_RE = re.compile(f"(?:,|{_ELEMENT})(?:{_OWS},(?:{_OWS}{_ELEMENT})?)*")


def _accept_ranges(accept: str) -> list[tuple[str, bool, float]] | None:
    """``(type/subtype lower-cased, has media-type parameters, quality)`` per
    range of the header, in order; None when the header breaks the grammar."""
    if accept and not _ACCEPT_RE.fullmatch(accept):
        return None
    return [
        (m["range"].lower(), bool(m["params"]), float(m["q"]) if m["q"] else 1.0)
        for m in _MEDIA_RANGE_RE.finditer(accept)
    ]


def accept_quality(accept: str | None, media: str) -> float:
    """How much an ``Accept`` header wants ``media`` (0 = not at all).

    As upstream (RFC 7231 through WebOb): the most specific matching range
    wins (``type/sub``, then ``type/*``, then ``*/*``), the first of equally
    specific ones; ``type/sub`` with media-type parameters never matches a
    bare ``media``. A missing or unparsable header accepts everything.
    """
    ranges = _accept_ranges(accept) if accept else None
    if ranges is None:
        return 1.0
    kind = media.split("/")[0]
    best, quality = 0, 0.0
    for range_, has_params, q in ranges:
        if range_ == media:
            specificity = 0 if has_params else 3
        elif range_ == f"{kind}/*":
            specificity = 2
        else:
            specificity = 1 if range_ == "*/*" else 0
        if specificity > best:
            best, quality = specificity, q
    return quality


def _preferred_format(accept: str | None) -> str:
    """Pick html, json or plain for an error body, as upstream does."""
    if not accept:
        return "json"
    html_q = accept_quality(accept, "text/html")
    json_q = accept_quality(accept, "application/json")
    if html_q > 0 and html_q >= json_q:
        return "html"
    if json_q > 0:
        return "json"
    return "plain"


_TAG = re.compile(r"<.*?>", re.S)
_BREAK = re.compile(r"<br.*?>", re.I | re.S)


def _strip_tags(page: str) -> str:
    """Upstream's text form of a page: newlines become spaces, ``<br />``
    a newline, and every other tag (in the message too) disappears."""
    text = _BREAK.sub("\n", page.replace("\n", " ").replace("\r", ""))
    return _TAG.sub("", text.replace("<!--", "").replace("-->", ""))


def _html_escape(text: str) -> str:
    """HTML-escaped and ASCII only: other characters as ``&#NNN;``, as upstream."""
    return html.escape(text).encode("ascii", "xmlcharrefreplace").decode("ascii")


def render(
    error: PlacementError, environ: dict, *, request_id: str | None, with_code: bool
) -> tuple[str, bytes]:
    """Render ``error`` as (content type, body) for the request's Accept.

    Under ``/v1``, and anywhere on Watcher's own endpoint, the body is always
    Watcher's instead.
    """
    if microversion.is_watcher_request(environ):
        return "application/json", _infra_optim_body(error, environ)
    status = error.status
    title = _title(status)
    detail = error.detail(environ)
    fmt = _preferred_format(environ.get("HTTP_ACCEPT"))
    if fmt == "json":
        doc: dict = {"status": status, "title": title, "detail": detail}
        if with_code:
            doc["code"] = error.code
        if request_id:
            doc["request_id"] = request_id
        doc.update(getattr(error, "extra", {}))
        return "application/json", json.dumps({"errors": [doc]}).encode()
    if fmt == "html":
        return HTML, _html_page(error, environ)
    return "text/plain; charset=UTF-8", f"{status} {title}\n\n{detail}".encode()


def _html_page(error: PlacementError, environ: dict) -> bytes:
    head = f"{error.status} {_title(error.status)}"
    return (
        f"<html>\n <head>\n  <title>{head}</title>\n </head>\n <body>\n"
        f"  <h1>{head}</h1>\n  {error.body(environ, _html_escape)}\n </body>\n</html>"
    ).encode()


def html_page(error: PlacementError, environ: dict) -> bytes | None:
    """``error``'s HTML page when the request prefers HTML, else None.

    For the layers that answer before the error renderer (the auth layer's
    401s) and otherwise keep their own document; never for Watcher's API
    (:func:`microversion.is_watcher_request`), whose JSON is the only form.
    """
    if microversion.is_watcher_request(environ):
        return None
    if _preferred_format(environ.get("HTTP_ACCEPT")) != "html":
        return None
    return _html_page(error, environ)


def _infra_optim_body(error: PlacementError, environ: dict) -> bytes:
    """Watcher's error document: ``error_message`` is a JSON *string*.

    python-watcherclient decodes the body, then ``error_message`` again, and
    shows ``faultstring``; an object there would crash it. Version errors hold
    ``{code, title, description}`` instead, or an HTML page when the client
    prefers HTML (the client reads neither).
    """
    message = error.message or _EXPLANATIONS.get(error.status, _title(error.status))
    inner: dict
    if isinstance(error, InfraOptimVersionError):
        head = f"{error.status} {_title(error.status)}"
        if _preferred_format(environ.get("HTTP_ACCEPT")) == "html":
            page = (
                f"<html>\n <head>\n  <title>{head}</title>\n </head>\n <body>\n"
                f"  <h1>{head}</h1>\n  {html.escape(message)}\n </body>\n</html>"
            )
            return json.dumps({"error_message": page}).encode()
        inner = {"code": error.status, "title": _title(error.status), "description": message}
    else:
        inner = {
            "faultcode": "Server" if error.status >= 500 else "Client",
            "faultstring": message,
            "debuginfo": None,
        }
    return json.dumps({"error_message": json.dumps(inner)}).encode()
