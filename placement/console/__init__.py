"""The web console: pages a browser opens under ``/console/``.

The pages are static files shipped in ``static/`` (plain ES modules, CSS and
SVG drawn by the browser; nothing is fetched from elsewhere) and served by
:class:`placement.console.assets.ConsoleAssets` before authentication, since
they hold no data. Everything they show comes from the API itself, through
the normal authentication and policy: the Placement and ``/v1`` routes, and
the console's own JSON routes under ``/console/api/`` (``handlers/console.py``).
"""
