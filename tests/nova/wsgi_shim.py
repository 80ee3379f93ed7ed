"""Serve another project's WSGI application under gunicorn, argv hidden.

Nova's and Keystone's WSGI entry points parse ``sys.argv`` with oslo.config,
which would choke on gunicorn's own arguments. Gunicorn loads this module
(``--pythonpath tests/nova wsgi_shim:application``) inside that project's
venv; it puts ``$CLOUD_WSGI_ARGV`` (a JSON list, the program's name first) in
``sys.argv`` and imports ``$CLOUD_WSGI_APP`` (``module:attribute``).
It imports nothing of ours: it runs in another project's interpreter.
"""

import importlib
import json
import os
import sys

sys.argv = json.loads(os.environ.get("CLOUD_WSGI_ARGV", '["wsgi"]'))
_module, _, _attribute = os.environ["CLOUD_WSGI_APP"].partition(":")
application = getattr(importlib.import_module(_module), _attribute)
