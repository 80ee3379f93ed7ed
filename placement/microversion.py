"""Microversion negotiation and the table of named feature versions.

A request names its version in ``OpenStack-API-Version: placement X.Y``.
Code compares the negotiated :class:`Version` against the names below
(``if want >= mv.NESTED_CANDIDATES``) rather than against bare tuples.
"""

from __future__ import annotations

from typing import NamedTuple

SERVICE_TYPE = "placement"
HEADER = "OpenStack-API-Version"
VARY = "openstack-api-version"


class Version(NamedTuple):
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


MIN_VERSION = Version(1, 0)
MAX_VERSION = Version(1, 39)

# --- features by the version that introduced them -------------------------
AGGREGATES = Version(1, 1)
RESOURCE_CLASSES = Version(1, 2)
PROVIDER_MEMBER_OF = Version(1, 3)
PROVIDER_RESOURCES = Version(1, 4)
DELETE_ALL_INVENTORIES = Version(1, 5)
TRAITS = Version(1, 6)
RESOURCE_CLASS_PUT_CREATE = Version(1, 7)
ALLOCATION_PROJECT_USER = Version(1, 8)
USAGES = Version(1, 9)
ALLOCATION_CANDIDATES = Version(1, 10)
ALLOCATIONS_LINK = Version(1, 11)
ALLOCATIONS_DICT = Version(1, 12)
POST_ALLOCATIONS = Version(1, 13)
NESTED_PROVIDERS = Version(1, 14)
CACHE_HEADERS = Version(1, 15)
CANDIDATES_LIMIT = Version(1, 16)
CANDIDATES_TRAITS = Version(1, 17)
PROVIDER_REQUIRED = Version(1, 18)
AGGREGATES_GENERATION = Version(1, 19)
PROVIDER_CREATE_RETURNS_BODY = Version(1, 20)
CANDIDATES_MEMBER_OF = Version(1, 21)
FORBIDDEN_TRAITS = Version(1, 22)
ERROR_CODES = Version(1, 23)
MEMBER_OF_REPEATED = Version(1, 24)
GRANULAR_GROUPS = Version(1, 25)
RESERVED_EQUALS_TOTAL = Version(1, 26)
SUMMARIES_ALL_CLASSES = Version(1, 27)
CONSUMER_GENERATION = Version(1, 28)
NESTED_CANDIDATES = Version(1, 29)
RESHAPER = Version(1, 30)
CANDIDATES_IN_TREE = Version(1, 31)
FORBIDDEN_AGGREGATES = Version(1, 32)
STRING_SUFFIXES = Version(1, 33)
MAPPINGS = Version(1, 34)
ROOT_REQUIRED = Version(1, 35)
SAME_SUBTREE = Version(1, 36)
REPARENT_PROVIDERS = Version(1, 37)
CONSUMER_TYPES = Version(1, 38)
ANY_OF_TRAITS = Version(1, 39)


class BadVersion(ValueError):
    """The header's value cannot be parsed as a version (answers 400)."""


class UnacceptableVersion(ValueError):
    """The version parses but is outside MIN..MAX (answers 406)."""


def requested_value(header: str | None, service: str = SERVICE_TYPE) -> str | None:
    """Return the text after the last ``service`` entry of the header.

    The header may carry several services (``compute 2.1, placement 1.5``);
    entries for other services, and ours without a value, are ignored and
    the last one for us wins.
    """
    if not header:
        return None
    for entry in reversed(header.split(",")):
        words = entry.split(None, 1)
        if len(words) == 2 and words[0].lower() == service:
            return words[1].strip()
    return None


def parse(header: str | None) -> Version:
    """Negotiate the version a request asks for.

    Absent → the minimum; ``latest`` (that spelling only) → the maximum.
    Raises :class:`BadVersion` or :class:`UnacceptableVersion`. A bad value's
    message ends with Python's own complaint about it, as upstream's does
    (``1`` lacks the ``minor`` of :class:`Version`; ``LATEST`` is no number).
    """
    value = requested_value(header)
    if value is None:
        return MIN_VERSION
    if value == "latest":
        return MAX_VERSION
    try:
        version = Version(*(int(part) for part in value.split(".", 1)))
    except (ValueError, TypeError) as exc:
        raise BadVersion(f"invalid version string: {value}; {exc}") from None
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise UnacceptableVersion(f"Unacceptable version header: {value}")
    return version


# --- infra-optim: Watcher's API under /v1 ------------------------------------
# Requests under ``/v1`` negotiate Watcher's versions instead of Placement's,
# with Watcher's lenient rules (see :func:`parse_infra_optim`).

INFRA_OPTIM_SERVICE_TYPE = "infra-optim"
INFRA_OPTIM_PREFIX = "/v1"
INFRA_OPTIM_MIN_VERSION = Version(1, 0)
INFRA_OPTIM_MAX_VERSION = Version(1, 7)

# features by the infra-optim version that introduced them
AUDIT_START_END_TIME = Version(1, 1)
AUDIT_FORCE = Version(1, 2)
DATA_MODEL = Version(1, 3)
WEBHOOKS = Version(1, 4)
STATUS_MESSAGE = Version(1, 5)
ACTION_UPDATE = Version(1, 5)
EXTENDED_DATA_MODEL = Version(1, 6)
TEMPLATE_DEFAULT_PARAMETERS = Version(1, 7)

_INFRA_OPTIM_RANGE = f"[{INFRA_OPTIM_MIN_VERSION}, {INFRA_OPTIM_MAX_VERSION}]"


class MalformedVersion(ValueError):
    """An infra-optim value with the wrong number of parts (406, no range headers)."""


def is_infra_optim_path(path: str) -> bool:
    """Whether ``path`` belongs to Watcher's API (``/v1`` and below)."""
    return path == INFRA_OPTIM_PREFIX or path.startswith(INFRA_OPTIM_PREFIX + "/")


#: Where Placement's port serves Watcher's own endpoint, as devstack mounts upstream's.
WATCHER_ENDPOINT_PREFIX = "/infra-optim"
#: WSGI environment key marking a request made on Watcher's own endpoint
#: (``placement.wsgi.watcher``, or under ``/infra-optim`` on Placement's port),
#: where every path is Watcher's and ``/`` is Watcher's version document.
WATCHER_ENDPOINT_KEY = "placement.watcher_endpoint"


def on_watcher_endpoint(environ: dict) -> bool:
    """Whether the request was made on Watcher's own endpoint."""
    return bool(environ.get(WATCHER_ENDPOINT_KEY))


def is_watcher_request(environ: dict) -> bool:
    """Whether Watcher's API answers the request (and so its error document):
    anything on Watcher's own endpoint, and ``/v1`` and below on Placement's."""
    return on_watcher_endpoint(environ) or is_infra_optim_path(environ.get("PATH_INFO", ""))


def parse_infra_optim(header: str | None) -> Version:
    """Negotiate a ``/v1`` request's version the way Watcher does.

    Absent, another service only, or unparsable (``abc``) → the minimum;
    ``latest`` → the maximum; a bare major (``1``) → ``1.0``. Raises
    :class:`MalformedVersion` for three or more parts and
    :class:`UnacceptableVersion` (with Watcher's text) outside the range.
    """
    value = requested_value(header, INFRA_OPTIM_SERVICE_TYPE)
    if value is None:
        return INFRA_OPTIM_MIN_VERSION
    value = value.strip()
    if value.lower() == "latest":
        return INFRA_OPTIM_MAX_VERSION
    parts = value.split(".")
    if len(parts) > 2:
        raise MalformedVersion("Invalid value for OpenStack-API-Version header")
    try:
        version = Version(int(parts[0]), int(parts[1]) if len(parts) == 2 else 0)
    except ValueError:
        return INFRA_OPTIM_MIN_VERSION
    if version.major != INFRA_OPTIM_MAX_VERSION.major or version.minor < 0:
        raise UnacceptableVersion(
            f"Mutually exclusive versions requested. Version {version} requested but not "
            f"supported by this service. The supported version range is: {_INFRA_OPTIM_RANGE}."
        )
    if version > INFRA_OPTIM_MAX_VERSION:
        raise UnacceptableVersion(
            f"Version {version} was requested but the minor version is not supported by "
            f"this service. The supported version range is: {_INFRA_OPTIM_RANGE}."
        )
    return version
