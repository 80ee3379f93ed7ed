"""Fixtures for the stories of Watcher's own endpoint (``gabbits/watcher-endpoint*``)."""

from __future__ import annotations


def fixtures(api_fixture: type) -> list[type]:

    class WatcherEndpointFixture(api_fixture):
        """Watcher's API alone, as ``placement.wsgi.watcher:application`` serves it."""

        watcher_only = True

    return [WatcherEndpointFixture]
