"""Session-wide checks of the test rig, and the fixtures most test areas share."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import sqlalchemy

from tests import apiclient, rig


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Keep ``:`` out of generated test ids.

    gabbi's pytest plugin takes any test id holding a colon for one of its YAML
    tests and crashes collection on it; parameters such as status messages
    ("Action failed in execute: ...") would otherwise produce such ids.
    """
    if isinstance(val, str) and ":" in val:
        return val.replace(":", ";").encode("unicode_escape").decode("ascii")
    return None


#: The test files that share one Nova cloud (``tests/nova/conftest.py``'s
#: ``nova_cloud``, a session fixture): they all go to one xdist worker.
NOVA_CLOUD_TESTS = "tests/nova/"


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadfile``, but every file of :data:`NOVA_CLOUD_TESTS` in one group.

    A session fixture exists once per worker; the Nova cloud (Keystone, Nova's
    services, Prometheus: most of a minute to start and a good part of the
    machine to run) must start once per run, not once per worker its files
    happen to land on.
    """
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneNovaCloud(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(NOVA_CLOUD_TESTS):
                return NOVA_CLOUD_TESTS
            return super()._split_scope(nodeid)

    return OneNovaCloud(config, log)  # type: ignore[arg-type]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI both database servers must be named: no silent skips."""
    if os.environ.get("CI", "").lower() == "true":
        missing = [var for var in rig.SERVER_ENV.values() if not os.environ.get(var)]
        if missing:
            raise pytest.UsageError(f"CI=true but {', '.join(missing)} not set")


@pytest.fixture(params=rig.backends())
def backend(request: pytest.FixtureRequest) -> str:
    """Each test using this runs once per database backend of the run."""
    return request.param


@pytest.fixture
def app(backend: str) -> Iterator:
    """The whole WSGI app (noauth2) on a fresh migrated database."""
    with rig.placement_app(backend) as (wsgi_app, _conf):
        yield wsgi_app


@pytest.fixture
def engine(app) -> sqlalchemy.Engine:
    """The app's own engine, for calling the object layer directly."""
    return app.placement_engine


@pytest.fixture(scope="module", params=rig.backends())
def api(request: pytest.FixtureRequest) -> Iterator[apiclient.Api]:
    """The service on a fresh database of each backend, shared by a test module."""
    with rig.placement_app(request.param) as (app, conf):
        yield apiclient.Api(app, conf, request.param)
