"""Gabbi fixtures: each YAML file gets a fresh database and app.

:func:`fixture_module` builds the module gabbi looks fixture classes up in,
bound to one database backend. Data fixtures seed through the public API
(:func:`api_call`), so they exercise the same paths a client would.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import types
import uuid

from gabbi import fixture

from tests import openapi_check, rig

# The app the intercept hands to gabbi's HTTP client for the current file.
_CURRENT: dict = {}


def _dispatch(environ, start_response):
    return _CURRENT["checked"](environ, start_response)


def current_app():
    """Intercept factory, called at collection time: a WSGI callable that
    forwards to the app built by the running file's fixture, each answer
    checked against the OpenAPI description (``tests/openapi_check.py``)."""
    return _dispatch


def api_call(app, method: str, path: str, body=None, version: str = "latest") -> tuple:
    """:func:`tests.rig.call` for seeding data: an error reply fails the fixture."""
    status, data = rig.call(app, method, path, body, version)
    if status >= 400:
        raise AssertionError(f"fixture call {method} {path} -> {status}: {str(data)[:500]}")
    return status, data


def _export_ids() -> None:
    """Environment variables the YAML files refer to (fresh per file)."""
    for name in (
        "RP_UUID",
        "RP_UUID1",
        "RP_UUID2",
        "PARENT_PROVIDER_UUID",
        "ALT_PARENT_PROVIDER_UUID",
        "PROJECT_ID",
        "PROJECT_ID_ALT",
        "USER_ID",
        "USER_ID_ALT",
        "ADMIN_PROJECT_ID",
        "SERVICE_PROJECT_ID",
        "INSTANCE_UUID",
        "MIGRATION_UUID",
        "CONSUMER_UUID",
        "CONSUMER_UUID1",
        "CONSUMER_UUID2",
    ):
        os.environ[name] = str(uuid.uuid4())
    for name in ("RP_NAME", "RP_NAME1", "RP_NAME2"):
        os.environ[name] = f"rp-{uuid.uuid4().hex[:12]}"
    os.environ["CUSTOM_RES_CLASS"] = "CUSTOM_IRON_NFV"
    os.environ["CUSTOM_RES_CLASS1"] = "CUSTOM_IRON_NFV1"
    os.environ["CUSTOM_RES_CLASS2"] = "CUSTOM_IRON_NFV2"


def fixture_module(backend: str) -> types.ModuleType:
    """A module of gabbi fixture classes that use ``backend``'s databases."""

    class APIFixture(fixture.GabbiFixture):
        """A fresh database and app, configured like a default deployment."""

        #: ``{group: {option: value}}`` set on the configuration.
        overrides: dict = {}
        #: Watcher's API alone (``placement.wsgi.watcher``) instead of the whole API.
        watcher_only = False

        def start_fixture(self) -> None:
            _export_ids()
            self._context = rig.placement_app(
                backend, watcher_only=self.watcher_only, **self.overrides
            )
            self.app, self.conf = self._context.__enter__()
            _CURRENT["app"] = self.app
            # Every answer a story gets must be one the OpenAPI description allows.
            _CURRENT["checked"] = openapi_check.checked(self.app)
            self.seed(self.app)

        def seed(self, app) -> None:
            """Data fixtures override this to create their providers."""

        def stop_fixture(self) -> None:
            _CURRENT.pop("app", None)
            _CURRENT.pop("checked", None)
            self._context.__exit__(None, None, None)

    module = types.ModuleType(f"gabbi_fixtures_{backend}")
    module.APIFixture = APIFixture
    for data_module in _data_modules():
        for fixture_class in data_module.fixtures(APIFixture):
            setattr(module, fixture_class.__name__, fixture_class)
    return module


def _data_modules() -> list[types.ModuleType]:
    import tests.gabbi_data as package

    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    return [importlib.import_module(f"tests.gabbi_data.{name}") for name in names]
