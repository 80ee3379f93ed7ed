"""Every route checks policy, and does so before it touches the database.

A caller with no role asks each route and method (at the newest microversion,
with an acceptable body type) and must get 403 without a single SQL
statement having run for the request.
"""

from __future__ import annotations

import uuid

import falcon.testing
import pytest
import sqlalchemy

from placement.wsgi import routes
from tests import rig

METHODS = ("get", "put", "post", "delete")
PARAMS = {
    "uuid": str(uuid.uuid4()),
    "consumer_uuid": str(uuid.uuid4()),
    "name": "CUSTOM_AUDIT",
    "resource_class": "VCPU",
}


def _cases():
    for template, resource, _allow in routes.ROUTES:
        if template in ("/", "/v1"):
            continue  # the version documents have no policy
        if template.startswith("/v1/"):
            continue  # Watcher's order: tests/handlers/actionplans/test_authorization_order.py
        for method in METHODS:
            if hasattr(resource, f"on_{method}"):
                yield pytest.param(
                    method.upper(), template.format(**PARAMS), id=f"{method.upper()} {template}"
                )


@pytest.fixture(scope="module")
def app_and_statements():
    with rig.placement_app("sqlite") as (app, _conf):
        statements: list[str] = []
        engine = app.placement_engine
        sqlalchemy.event.listen(
            engine, "before_cursor_execute", lambda *args: statements.append(args[2])
        )
        yield app, statements


@pytest.mark.parametrize("method,path", list(_cases()))
def test_policy_comes_before_the_database(app_and_statements, method, path):
    app, statements = app_and_statements
    statements.clear()
    response = falcon.testing.simulate_request(
        app,
        method,
        path,
        body="{}" if method in ("PUT", "POST") else None,
        headers={
            "X-Auth-Token": "nobody:someproject",
            "OpenStack-API-Version": "placement latest",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )
    assert response.status_code == 403, response.text
    assert "Policy does not allow placement:" in response.text
    assert statements == []
