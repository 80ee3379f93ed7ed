"""WSGI entry point of Watcher's API alone: ``placement.wsgi.watcher:application``.

The endpoint to register as ``infra-optim``: ``/`` is Watcher's version
document, ``/v1`` its API, and Placement's routes are absent. Same
configuration as ``placement.wsgi.api`` (``OS_PLACEMENT_CONFIG_DIR``,
``placement.conf``), same database.
"""

from placement.wsgi import init_application

application = init_application(watcher_only=True)
