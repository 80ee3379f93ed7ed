"""Prometheus's HTTP API, one GET at a time: an answer, refused, or unreachable.

Upstream tells two failures apart and so do we: a request that never reached
Prometheus (connection refused, reset, timed out) is :class:`Unreachable`
and worth retrying; one Prometheus answered with an HTTP error or a JSON
``status`` other than ``success`` (a bad query) is :class:`Refused`, and
asking again would get the same answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import requests

#: Seconds to wait for Prometheus to accept and to answer one request (upstream
#: sets none: a hung Prometheus would hold the audit forever).
TIMEOUT = (10.0, 60.0)


class Unreachable(Exception):
    """The request did not reach Prometheus, or no answer came back."""


class Refused(Exception):
    """Prometheus answered, with an error; ``str()`` is its message."""


@dataclass(frozen=True)
class Endpoint:
    """Where Prometheus's API is (``http[s]://host:port/api/v1/``) and how to reach it."""

    base: str
    auth: tuple[str, str] | None = None
    verify: str | bool = False
    cert: tuple[str, str] | None = None


def get(session: requests.Session, endpoint: Endpoint, path: str, params: Mapping[str, str]) -> Any:
    """The ``data`` of one GET of ``path``; raises Unreachable or Refused."""
    try:
        response = session.get(
            endpoint.base + path,
            params=dict(params),
            auth=endpoint.auth,
            verify=endpoint.verify,
            cert=endpoint.cert,
            timeout=TIMEOUT,
        )
    except (requests.ConnectionError, requests.Timeout) as error:
        raise Unreachable(str(error)) from error
    except (requests.RequestException, OSError) as error:
        # A request that cannot be made (a bad URL, an unreadable CA or client
        # certificate): asking again would fail the same way.
        raise Refused(str(error)) from error
    return _data(response)


def _data(response: requests.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise Refused(f"HTTP {response.status_code}: {response.text[:200].strip()}")
    if response.status_code != 200 or body.get("status") != "success":
        detail = ": ".join(str(body[k]) for k in ("errorType", "error") if k in body)
        raise Refused(f"HTTP {response.status_code}: {detail or body}")
    return body.get("data")


def retried(
    call: Callable[[], Any], attempts: int, interval: float, sleep: Callable[[float], None]
) -> Any:
    """``call()``, attempted up to ``attempts`` times while Prometheus is unreachable
    (``interval`` seconds apart); a refusal is raised at once."""
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except Unreachable:
            if attempt == attempts:
                raise
            sleep(interval)
    raise AssertionError("attempts is at least 1")
