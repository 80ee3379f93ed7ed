"""WSGI entry point: ``placement.wsgi.api:application``."""

from placement.wsgi import init_application

application = init_application()
