"""Every ``/v1`` route checks policy, in Watcher's order.

Lists and create check policy before anything else: 403 without a single SQL
statement. Single objects are looked up first, so an unknown one is 404 even
for a caller the policy would refuse, except where upstream checks the policy
first there too (:data:`POLICY_FIRST`).
"""

from __future__ import annotations

import uuid

import falcon.testing
import pytest
import sqlalchemy

from placement.wsgi import routes
from tests import rig

METHODS = ("get", "post", "patch", "delete")
#: Single-object routes whose policy upstream checks before the lookup.
POLICY_FIRST = {("GET", "/v1/strategies/{ident}/state")}
UNKNOWN = str(uuid.uuid4())


def _cases(single: bool):
    for template, resource, _allow in routes.ROUTES:
        if not template.startswith("/v1/"):
            continue
        for method in METHODS:
            policy_first = "{ident}" not in template or (method.upper(), template) in POLICY_FIRST
            if hasattr(resource, f"on_{method}") and policy_first is not single:
                path = template.format(ident=UNKNOWN)
                yield pytest.param(method.upper(), path, id=f"{method.upper()} {template}")


@pytest.fixture(scope="module")
def app_and_statements():
    with rig.placement_app("sqlite") as (app, _conf):
        statements: list[str] = []
        sqlalchemy.event.listen(
            app.placement_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        yield app, statements


def _as_nobody(app, method: str, path: str) -> falcon.testing.Result:
    return falcon.testing.simulate_request(
        app,
        method,
        path,
        body="[]" if method == "PATCH" else "{}" if method == "POST" else None,
        headers={
            "X-Auth-Token": "nobody:someproject",
            "OpenStack-API-Version": "infra-optim latest",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
    )


@pytest.mark.parametrize("method,path", list(_cases(single=False)))
def test_lists_and_create_check_policy_first(app_and_statements, method, path):
    app, statements = app_and_statements
    statements.clear()
    response = _as_nobody(app, method, path)
    assert response.status_code == 403, response.text
    assert "Policy doesn't allow " in response.text
    assert statements == []


@pytest.mark.parametrize("method,path", list(_cases(single=True)))
def test_single_objects_are_looked_up_first(app_and_statements, method, path):
    app, _statements = app_and_statements
    response = _as_nobody(app, method, path)
    assert response.status_code == 404, response.text
    assert "could not be found" in response.text
