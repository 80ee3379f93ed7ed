"""Error codes, the errors the service raises, and their one renderer.

Every failure the API reports is a :class:`PlacementError` (or becomes one
at the edge). :func:`render` turns it into upstream's error document:
``{"errors": [{"status", "title", "detail", "code"?, "request_id"}]}``,
negotiated to HTML or plain text when the client prefers those.
"""

from __future__ import annotations

import html
import json
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
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
}


class PlacementError(Exception):
    """An error answered to the client with ``status`` and ``code``.

    ``vary`` is False for the errors upstream raises outside its handlers'
    own error handling (policy denials, unknown routes, pre-routing checks):
    those responses carry no ``Vary`` header there.
    """

    status = 500
    vary = True

    def __init__(
        self, message: str = "", *, code: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or DEFAULT
        self.headers = dict(headers or {})

    def explanation(self, environ: dict) -> str:
        return _EXPLANATIONS.get(self.status, "")

    def detail(self, environ: dict) -> str:
        """The ``detail`` text: explanation, a blank line, the message."""
        message = self.message.replace("\r", "").replace("\n", " ")
        return f"{self.explanation(environ)}\n\n {message}  "


class BadRequest(PlacementError):
    status = 400


class Forbidden(PlacementError):
    status = 403
    vary = False


class NotFound(PlacementError):
    status = 404


class Conflict(PlacementError):
    status = 409


class InternalError(PlacementError):
    status = 500


class ServiceUnavailable(PlacementError):
    """The service cannot answer now but will again (e.g. its database is down).

    ``retry_after`` seconds go out as the ``Retry-After`` header.
    """

    status = 503

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, headers={"retry-after": str(retry_after)})


class _TightDetail(PlacementError):
    """Errors whose detail upstream renders without the trailing spaces."""

    def detail(self, environ: dict) -> str:
        return f"{self.explanation(environ)} \n\n {self.message}"


class MethodNotAllowed(_TightDetail):
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


class NotAcceptable(_TightDetail):
    status = 406

    def __init__(self, message: str, *, extra: dict | None = None) -> None:
        super().__init__(message)
        self.extra = dict(extra or {})

    def explanation(self, environ: dict) -> str:
        accept = environ.get("HTTP_ACCEPT", "")
        return (
            "The resource could not be generated that was acceptable to "
            f"your browser (content of type {accept}."
        )


class UnsupportedMediaType(_TightDetail):
    status = 415

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


def accept_quality(accept: str | None, media: str) -> float:
    """How much an ``Accept`` header wants ``media`` (0 = not at all).

    The most specific matching range wins: ``type/sub``, then ``type/*``,
    then ``*/*``. A missing header accepts everything.
    """
    if not accept:
        return 1.0
    offers: dict[str, float] = {}
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        quality = 1.0
        for param in fields[1:]:
            if param.startswith("q="):
                try:
                    quality = float(param[2:])
                except ValueError:
                    quality = 0.0
        range_ = fields[0].lower()
        offers[range_] = max(quality, offers.get(range_, 0.0))
    for candidate in (media, f"{media.split('/')[0]}/*", "*/*"):
        if candidate in offers:
            return offers[candidate]
    return 0.0


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


def render(
    error: PlacementError, environ: dict, *, request_id: str | None, with_code: bool
) -> tuple[str, bytes]:
    """Render ``error`` as (content type, body) for the request's Accept.

    Under ``/v1`` (Watcher's API) the body is always Watcher's instead.
    """
    if microversion.is_infra_optim_path(environ.get("PATH_INFO", "")):
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
    head = f"{status} {title}"
    if fmt == "html":
        body = (
            f"<html>\n <head>\n  <title>{head}</title>\n </head>\n <body>\n"
            f"  <h1>{head}</h1>\n  {html.escape(error.explanation(environ))}"
            f"<br /><br />\n{html.escape(error.message)}\n\n\n </body>\n</html>"
        )
        return "text/html; charset=UTF-8", body.encode()
    return "text/plain; charset=UTF-8", f"{head}\n\n{detail}".encode()


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
