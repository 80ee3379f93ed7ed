"""Watcher's own endpoint: the one the catalog's ``infra-optim`` entry names.

Watcher's clients are given an endpoint whose ``/`` is Watcher's version
document and whose ``/v1`` is its API (doc/watcher-api.md §1.1). It is
served two ways, both marking the request with
:data:`placement.microversion.WATCHER_ENDPOINT_KEY` so that every layer
below answers as Watcher:

* ``placement.wsgi.watcher:application``, Watcher's API alone on a port of
  its own (:class:`WatcherMount` with no prefix: every request is Watcher's);
* under ``/infra-optim`` (``microversion.WATCHER_ENDPOINT_PREFIX``) of the
  combined application, where devstack mounts upstream's: the prefix moves
  from ``PATH_INFO`` to ``SCRIPT_NAME``, as a server mounting an application
  there would do, so every link the answer holds (built on ``SCRIPT_NAME`` by
  ``handlers.base.absolute_url``) keeps it.

:class:`Routers` then hands the request to the router of its endpoint.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from placement import auth
from placement import microversion as mv


class WatcherMount:
    """WSGI layer marking the requests made on Watcher's endpoint.

    ``prefix`` None: every request is (Watcher's API alone). Otherwise only
    the paths under ``prefix``, which moves to ``SCRIPT_NAME``; ``PATH_INFO``
    keeps the rest, ``/`` at least. Placed outside authentication, which
    then sees the version document as ``/`` and lets it through unauthenticated.
    """

    def __init__(self, app: auth.WSGIApp, prefix: str | None) -> None:
        self.app = app
        self.prefix = prefix

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if self.prefix is None:
            environ[mv.WATCHER_ENDPOINT_KEY] = True
        elif path == self.prefix or path.startswith(self.prefix + "/"):
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + self.prefix
            environ["PATH_INFO"] = path[len(self.prefix) :] or "/"
            environ[mv.WATCHER_ENDPOINT_KEY] = True
        return self.app(environ, start_response)


class Routers:
    """The bottom of the combined application: Watcher's router for a request
    on Watcher's endpoint, Placement's (with ``/v1`` beside it) otherwise."""

    def __init__(self, placement: auth.WSGIApp, watcher: auth.WSGIApp) -> None:
        self.placement = placement
        self.watcher = watcher

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        router = self.watcher if mv.on_watcher_endpoint(environ) else self.placement
        return router(environ, start_response)
