"""Limits on a request's size, checked before it is routed: the body's
declared length, the number of query parameters, the length of the headers
the service parses.

A front-end server usually enforces limits of its own (gunicorn: a
4094-byte request line, 8190-byte header fields); these hold behind any
server, and answer in the API's error format, Placement's or, under
``/v1``, Watcher's.
"""

from __future__ import annotations

import re

import falcon

from placement import errors
from placement.handlers import intake

#: More query parameters than any request of the API needs (a request for
#: allocation candidates with many groups has a few dozen).
MAX_QUERY_PARAMETERS = 1000
#: The longest value of a header the service reads, as gunicorn's default
#: limit of a header field.
MAX_HEADER_LENGTH = 8190
#: The headers the service parses itself (authentication's are keystonemiddleware's).
PARSED_HEADERS = ("Accept", "Content-Type", "OpenStack-API-Version", "X-OpenStack-Request-Id")

_PAIR_SEPARATOR = re.compile("[&;]")


class RequestLimits:
    """Falcon middleware: refuse a request over a limit before it is routed.

    A declared ``Content-Length`` over ``max_body_size`` is a 413 and the
    body is never read; the limit is left in ``req.context.max_body_size``
    for :func:`intake.read_body`, which refuses a chunked body over it.
    Too many query parameters, or a parsed header too long, is a 400.
    """

    def __init__(self, max_body_size: int) -> None:
        self.max_body_size = max_body_size

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.max_body_size = self.max_body_size
        length = req.env.get("CONTENT_LENGTH")
        # MicroversionMiddleware, before this, answered a length that is not an integer.
        if length and int(length) > self.max_body_size:
            raise intake.too_large(self.max_body_size)
        if len(_PAIR_SEPARATOR.findall(req.query_string or "")) >= MAX_QUERY_PARAMETERS:
            raise errors.BadRequest(
                "Invalid query string parameters: more than "
                f"{MAX_QUERY_PARAMETERS} parameters in one request"
            )
        for name in PARSED_HEADERS:
            value = req.get_header(name)
            if value is not None and len(value) > MAX_HEADER_LENGTH:
                raise errors.BadRequest(
                    f"The {name} header is longer than {MAX_HEADER_LENGTH} characters"
                )
