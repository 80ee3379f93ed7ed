"""A gunicorn configuration module for the API: metrics summed over workers.

Run the API under gunicorn with it so that ``[metrics] enabled`` works with
any number of workers::

    gunicorn -c python:placement.wsgi.gunicorn_conf --workers 4 \\
        --bind 0.0.0.0:8778 placement.wsgi.api:application

It reads the ``placement.conf`` the application will read (the same
``OS_PLACEMENT_CONFIG_DIR`` rule) and defines only server hooks, so every
other gunicorn setting stays on the command line.
"""

from __future__ import annotations

from placement import conf as placement_conf
from placement.wsgi import instrument

_hooks = instrument.gunicorn_hooks(
    placement_conf.load([], default_config_files=placement_conf.wsgi_config_files())
)

when_ready = _hooks.when_ready
child_exit = _hooks.child_exit
on_exit = _hooks.on_exit
