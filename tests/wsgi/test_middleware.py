"""The outer layers: CORS, proxy headers and the access log."""

from __future__ import annotations

import contextlib
import logging
import re

import pytest

from placement import conf as placement_conf
from placement.wsgi import create_app
from tests import rig


@contextlib.contextmanager
def app_with(**groups: dict):
    """An app on a fresh SQLite database with library options set per group."""
    with rig.fresh_database("sqlite") as url:
        rig.migrated(url)
        conf = rig.make_conf(url)
        for group, values in groups.items():
            for name, value in values.items():
                conf.set_override(name, value, group=group)
        app = create_app(conf)
        try:
            yield app
        finally:
            app.placement_engine.dispose()


ORIGIN = "http://valid.example.com"
PREFLIGHT = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET"}


@pytest.fixture(scope="module")
def cors_app():
    with app_with(cors={"allowed_origin": [ORIGIN]}) as app:
        yield app


@pytest.fixture(scope="module")
def plain_app():
    with app_with() as app:
        yield app


def test_preflight_is_answered_before_auth(cors_app):
    response = rig.request(
        cors_app,
        "OPTIONS",
        "/traits",
        headers={
            **PREFLIGHT,
            "Access-Control-Request-Headers": "openstack-api-version,x-auth-token",
        },
    )
    assert response.status == 200
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.headers["access-control-allow-methods"] == "GET"
    assert response.headers["access-control-allow-headers"] == "openstack-api-version,x-auth-token"
    assert response.headers["access-control-allow-credentials"] == "true"
    assert response.headers["access-control-max-age"] == "3600"


def test_preflight_for_an_unlisted_origin_or_header_gets_no_cors_headers(cors_app):
    for headers in (
        {"Origin": "http://evil.example.com", "Access-Control-Request-Method": "GET"},
        {**PREFLIGHT, "Access-Control-Request-Headers": "x-not-allowed"},
    ):
        response = rig.request(cors_app, "OPTIONS", "/", headers=headers)
        assert response.status == 200
        assert "access-control-allow-origin" not in response.headers


def test_preflight_for_a_method_placement_does_not_list(cors_app):
    response = rig.request(
        cors_app,
        "OPTIONS",
        "/",
        headers={"Origin": ORIGIN, "Access-Control-Request-Method": "TRACE"},
    )
    assert "access-control-allow-origin" not in response.headers


def test_simple_request_exposes_placement_headers(cors_app):
    response = rig.request(
        cors_app,
        "GET",
        "/traits",
        headers={
            "Origin": ORIGIN,
            "X-Auth-Token": "admin",
            "OpenStack-API-Version": "placement 1.6",
        },
    )
    assert response.status == 200
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert response.headers["access-control-expose-headers"] == ",".join(
        placement_conf.CORS_DEFAULTS["expose_headers"]
    )


def test_without_cors_config_there_are_no_cors_headers(plain_app):
    assert rig.request(plain_app, "OPTIONS", "/", headers=PREFLIGHT).status == 405
    response = rig.request(plain_app, "GET", "/", headers=PREFLIGHT)
    assert response.status == 200
    assert not [h for h in response.headers if h.startswith("access-control-")]


FORWARDED = {
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "placement.example.org",
    "X-Forwarded-For": "203.0.113.7",
}


def create_class(app, name):
    return rig.request(
        app,
        "PUT",
        f"/resource_classes/{name}",
        headers={"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.7", **FORWARDED},
    )


def test_proxy_headers_shape_location_when_enabled():
    with app_with(oslo_middleware={"enable_proxy_headers_parsing": True}) as app:
        response = create_class(app, "CUSTOM_PROXIED")
    assert response.status == 201
    assert (
        response.headers["location"]
        == "https://placement.example.org/resource_classes/CUSTOM_PROXIED"
    )


def test_proxy_headers_are_ignored_by_default(plain_app):
    response = create_class(plain_app, "CUSTOM_DIRECT")
    assert (
        response.headers["location"] == "http://falconframework.org/resource_classes/CUSTOM_DIRECT"
    )


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def access_log():
    logger = logging.getLogger("placement.requestlog")
    lines = _Lines()
    logger.addHandler(lines)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield lines.lines
    finally:
        logger.setLevel(level)
        logger.removeHandler(lines)


#: Upstream's access line; the request id, user and project are in oslo.log's prefix.
ACCESS_LINE = re.compile(
    r'^(?P<addr>\S+) "(?P<method>\S+) (?P<path>\S+)" status: (?P<status>\d+) '
    r"len: (?P<len>\S+) microversion: (?P<mv>\S+)$"
)


def test_one_access_line_per_request(plain_app, access_log):
    response = rig.request(
        plain_app,
        "GET",
        "/traits?name=in:X",
        headers={"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.6"},
    )
    assert len(access_log) == 1
    fields = ACCESS_LINE.match(access_log[0]).groupdict()
    assert fields["method"] == "GET"
    assert fields["path"] == "/traits?name=in:X"
    assert fields["status"] == "200"
    assert fields["len"] == str(len(response.body))
    assert fields["mv"] == "1.6"


def test_access_line_of_a_401_has_no_microversion(plain_app, access_log):
    rig.request(plain_app, "GET", "/traits", headers={})
    fields = ACCESS_LINE.match(access_log[-1]).groupdict()
    assert (fields["status"], fields["mv"]) == ("401", "-")


def test_access_line_shows_the_forwarded_client_when_enabled(access_log):
    with app_with(oslo_middleware={"enable_proxy_headers_parsing": True}) as app:
        create_class(app, "CUSTOM_LOGGED")
    assert access_log[-1].startswith('203.0.113.7 "PUT /resource_classes/CUSTOM_LOGGED"')
