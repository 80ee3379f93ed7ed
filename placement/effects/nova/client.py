"""A small client of Nova's compute API on a keystoneauth session (no python-novaclient).

The session comes from ``[watcher_clients_auth]`` (keystoneauth's auth and
session options), the compute endpoint from its catalog (service type
``compute``, ``[nova_client] endpoint_type`` and ``region_name``; an
``admin_token`` auth names the endpoint itself). Every call sends
``OpenStack-API-Version: compute X`` at the microversion it needs, named
below; a refusal is a :class:`NovaError` carrying Nova's own message, and a
Nova that could not be reached an :class:`Unreachable` (after the bounded
retries of ``[watcher_applier] nova_retries``). One client, and so one
keystoneauth session and token, serves every action of an applier
(:func:`shared`); keystoneauth renews the token.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from keystoneauth1 import adapter as ksa_adapter
from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ka_loading
from oslo_config.cfg import ConfigOpts

from placement import actionplan_opts
from placement.effects.nova import reconcile

#: Hypervisor and service ids are uuids (the hypervisor's is the compute node's,
#: so the node provider's uuid); ``PUT /os-services/{id}``.
HYPERVISOR_UUIDS: Final = "2.53"
#: ``os-migrateLive`` with a host the scheduler checks (no ``force``), block
#: migration ``auto``.
LIVE_MIGRATE_CHECKED_HOST: Final = "2.30"
#: ``migrate`` may name the destination host.
COLD_MIGRATE_HOST: Final = "2.56"
#: ``GET /os-migrations`` with the records' uuids and paging, filtered by server.
MIGRATIONS: Final = "2.59"
#: The server with its flavor embedded (``original_name``) and admin attributes.
SERVER_FLAVOR: Final = "2.47"
#: Instance action events carry ``details``: why a step failed, in Nova's words.
ACTION_EVENT_DETAILS: Final = "2.84"
#: ``DELETE /servers/{id}/migrations/{migration_id}``: abort a live migration.
ABORT_LIVE_MIGRATION: Final = "2.24"
#: Calls whose body and answer are the same at every microversion.
BASE: Final = "2.1"
#: The lowest compute API the executor works with: every microversion above but
#: the instance action events' details, which it does without.
FLOOR: Final = MIGRATIONS
#: Answers that mean "not now" from whatever stands in front of Nova's API.
GATEWAY_ERRORS: Final = frozenset({502, 503, 504})
#: Calls sent again even when a lost answer means Nova may have done them: a read,
#: and a service's state set (the same again changes nothing).
RESENDABLE: Final = frozenset({"GET", "PUT"})


class NovaError(Exception):
    """Nova refused a call; ``str()`` is Nova's message."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotFound(NovaError):
    """Nova has no such server, hypervisor, service or flavor (404)."""


class Unreachable(NovaError):
    """Nova could not be reached: no connection, no answer in time, or a gateway's
    502, 503 or 504. Not a refusal: a later look may find it back.

    ``maybe_taken``: the request may have reached Nova and only its answer was lost
    (a read timeout, a gateway error), so one that changes something is not simply
    sent again; False when nothing can have reached Nova (no connection made).
    """

    def __init__(self, message: str, status: int | None = None, maybe_taken: bool = True):
        super().__init__(message, status)
        self.maybe_taken = maybe_taken


@dataclass(frozen=True)
class Retries:
    """How often a call Nova could not answer is sent again, and the first wait."""

    count: int = 0
    backoff: float = 0.0

    @classmethod
    def from_conf(cls, conf: ConfigOpts) -> Retries:
        group = conf[actionplan_opts.APPLIER_GROUP]
        return cls(group.nova_retries, group.nova_retry_backoff)

    def waits(self) -> list[float]:
        """The waits before each retry: the backoff, doubled each time."""
        return [self.backoff * 2**attempt for attempt in range(self.count)]


def fault_message(body: Any) -> str | None:
    """Nova's message in an error body (``{"badRequest": {"message": ...}}``)."""
    if isinstance(body, dict):
        for value in body.values():
            if isinstance(value, dict) and "message" in value:
                return str(value["message"])
    return None


@dataclass(frozen=True)
class Hypervisor:
    """A compute node as Nova shows it: its Nova host and compute service."""

    uuid: str
    hostname: str
    host: str
    service_id: str
    service_disabled: bool
    disabled_reason: str | None


def session_from(conf: ConfigOpts) -> ksa_adapter.Adapter:
    """A keystoneauth adapter to the compute endpoint, from the configuration."""
    group = actionplan_opts.CLIENTS_AUTH_GROUP
    try:
        auth = ka_loading.load_auth_from_conf_options(conf, group)
    except ksa_exceptions.ClientException as exc:
        raise NovaError(f"[{group}] cannot authenticate: {exc}") from None
    if auth is None:
        raise NovaError(f"[{group}] auth_type is not set: the applier cannot reach Nova")
    session = ka_loading.load_session_from_conf_options(conf, group, auth=auth)
    return ksa_adapter.Adapter(
        session,
        service_type="compute",
        interface=actionplan_opts.interface(conf),
        region_name=conf[actionplan_opts.NOVA_CLIENT_GROUP].region_name,
    )


class Nova:
    """The calls the Nova executor makes, each at its own microversion."""

    def __init__(self, compute: ksa_adapter.Adapter, retries: Retries = Retries()) -> None:
        self._compute = compute
        self._retries = retries

    @classmethod
    def from_conf(cls, conf: ConfigOpts) -> Nova:
        return cls(session_from(conf), Retries.from_conf(conf))

    def _call(
        self, method: str, path: str, microversion: str, body: Any = None
    ) -> tuple[Any, Mapping[str, str]]:
        """One call, sent again while Nova cannot be reached (:data:`RESENDABLE` ones
        always; others only when they cannot have reached Nova), within :class:`Retries`.
        ``(decoded body or None, headers)``; a refusal raises NovaError."""
        for wait in self._retries.waits():
            try:
                return self._send(method, path, microversion, body)
            except Unreachable as exc:
                if method not in RESENDABLE and exc.maybe_taken:
                    raise
            time.sleep(wait)
        return self._send(method, path, microversion, body)

    def _send(
        self, method: str, path: str, microversion: str, body: Any
    ) -> tuple[Any, Mapping[str, str]]:
        """One request and Nova's answer to it, decoded; errors as the class says."""
        response = self._request(method, path, microversion, body)
        try:
            decoded = response.json() if response.content else None
        except ValueError:
            decoded = None
        if response.status_code in GATEWAY_ERRORS:
            message = fault_message(decoded) or response.reason or str(response.status_code)
            raise Unreachable(f"Nova could not be reached: {message}", response.status_code)
        if response.status_code >= 400:
            message = fault_message(decoded) or response.text or response.reason
            kind = NotFound if response.status_code == 404 else NovaError
            raise kind(message, response.status_code)
        return decoded, response.headers

    def _request(self, method: str, path: str, microversion: str, body: Any) -> Any:
        """keystoneauth's response; what stopped the request, as Unreachable or NovaError."""
        try:
            return self._compute.request(
                path, method, json=body, microversion=microversion, raise_exc=False
            )
        except (ksa_exceptions.ConnectionError, ksa_exceptions.RequestTimeout) as exc:
            raise Unreachable(
                f"Nova could not be reached: {exc}", maybe_taken=not _never_connected(exc)
            ) from None
        except ksa_exceptions.HttpError as exc:  # Keystone's answer, before Nova was asked
            if exc.http_status in GATEWAY_ERRORS:
                message = f"Nova could not be reached: Keystone answered {exc}"
                raise Unreachable(message, exc.http_status, maybe_taken=False) from None
            raise NovaError(f"Nova's credentials were refused: {exc}", exc.http_status) from None
        except ksa_exceptions.ClientException as exc:
            raise NovaError(f"Nova cannot be found: {exc}") from None

    def max_microversion(self) -> str | None:
        """The highest compute microversion the endpoint offers, from its version
        document (``GET`` on the endpoint itself); None when it names none."""
        body, _ = self._call("GET", "/", BASE)
        found = (body or {}).get("version", {}).get("version")
        return str(found) if found else None

    def _action(self, server_id: str, body: dict[str, Any], microversion: str) -> str | None:
        """``POST /servers/{id}/action``; returns Nova's request id (for its events)."""
        _, headers = self._call("POST", f"/servers/{server_id}/action", microversion, body)
        return headers.get("x-openstack-request-id")

    # -- reading -------------------------------------------------------------------------

    def server(self, server_id: str) -> dict[str, Any]:
        """``GET /servers/{id}`` at 2.47 (flavor embedded; host and task state for admin)."""
        body, _ = self._call("GET", f"/servers/{server_id}", SERVER_FLAVOR)
        return dict(body["server"])

    def server_state(self, server_id: str) -> reconcile.Server | None:
        """The server as the reconciliation reads it; None when Nova has no such server."""
        try:
            found = self.server(server_id)
        except NotFound:
            return None
        fault = found.get("fault") or {}
        return reconcile.Server(
            host=found.get("OS-EXT-SRV-ATTR:host"),
            status=str(found.get("status")),
            task_state=found.get("OS-EXT-STS:task_state"),
            fault=fault.get("message"),
        )

    def migrations(self, server_id: str) -> list[reconcile.Migration]:
        """``GET /os-migrations?instance_uuid=`` at 2.59: the server's migration records."""
        body, _ = self._call("GET", f"/os-migrations?instance_uuid={server_id}", MIGRATIONS)
        return [
            reconcile.Migration(
                id=int(m["id"]),
                status=str(m["status"]),
                migration_type=str(m.get("migration_type")),
                source_compute=m.get("source_compute"),
                dest_compute=m.get("dest_compute"),
            )
            for m in body.get("migrations", [])
        ]

    def hypervisor(self, node_uuid: str) -> Hypervisor:
        """``GET /os-hypervisors/{uuid}`` at 2.53: the compute node whose uuid is
        the node provider's, its Nova host and compute service."""
        body, _ = self._call("GET", f"/os-hypervisors/{node_uuid}", HYPERVISOR_UUIDS)
        found = body["hypervisor"]
        service = found["service"]
        return Hypervisor(
            uuid=str(found["id"]),
            hostname=str(found["hypervisor_hostname"]),
            host=str(service["host"]),
            service_id=str(service["id"]),
            service_disabled=found.get("status") == "disabled",
            disabled_reason=service.get("disabled_reason"),
        )

    def flavor_id(self, flavor: str) -> str:
        """A flavor by id, else by name (``GET /flavors/detail``, every visibility)."""
        try:
            body, _ = self._call("GET", f"/flavors/{flavor}", BASE)
            return str(body["flavor"]["id"])
        except NotFound:
            pass
        body, _ = self._call("GET", "/flavors/detail?is_public=None", BASE)
        for found in body.get("flavors", []):
            if found.get("name") == flavor:
                return str(found["id"])
        raise NotFound(f"Flavor {flavor} could not be found.", 404)

    def failure_details(self, server_id: str, request_id: str | None) -> str | None:
        """Why the instance action of ``request_id`` failed, from its events' ``details``
        (2.84); None when Nova says nothing more (or offers no such microversion)."""
        if not request_id:
            return None
        try:
            body, _ = self._call(
                "GET",
                f"/servers/{server_id}/os-instance-actions/{request_id}",
                ACTION_EVENT_DETAILS,
            )
        except NovaError:
            return None
        events = body.get("instanceAction", {}).get("events") or []
        details = [str(e["details"]) for e in events if e.get("details")]
        return "; ".join(details) or None

    # -- asking --------------------------------------------------------------------------

    def live_migrate(self, server_id: str, host: str | None) -> str | None:
        """``os-migrateLive`` at 2.30: to ``host`` as the scheduler checks it (None: the
        scheduler's choice), block migration decided by Nova."""
        body = {"os-migrateLive": {"host": host, "block_migration": "auto"}}
        return self._action(server_id, body, LIVE_MIGRATE_CHECKED_HOST)

    def cold_migrate(self, server_id: str, host: str | None) -> str | None:
        """``migrate`` at 2.56, to ``host`` (None: the scheduler's choice)."""
        return self._action(server_id, {"migrate": {"host": host}}, COLD_MIGRATE_HOST)

    def resize(self, server_id: str, flavor_id: str) -> str | None:
        """``resize`` to flavor ``flavor_id``."""
        return self._action(server_id, {"resize": {"flavorRef": flavor_id}}, BASE)

    def abort_live_migration(self, server_id: str, migration_id: int) -> None:
        """``DELETE /servers/{id}/migrations/{migration_id}`` at 2.24: stop a live
        migration in progress (Nova then rolls it back)."""
        self._call(
            "DELETE", f"/servers/{server_id}/migrations/{migration_id}", ABORT_LIVE_MIGRATION
        )

    def confirm_resize(self, server_id: str) -> None:
        """``confirmResize`` of a server in VERIFY_RESIZE (a cold migration or resize)."""
        self._action(server_id, {"confirmResize": None}, BASE)

    def stop(self, server_id: str) -> str | None:
        """``os-stop``."""
        return self._action(server_id, {"os-stop": None}, BASE)

    def shelve(self, server_id: str) -> str | None:
        """``shelve`` (offloaded after Nova's ``shelved_offload_time``)."""
        return self._action(server_id, {"shelve": None}, BASE)

    def delete(self, server_id: str) -> None:
        """``DELETE /servers/{id}``."""
        self._call("DELETE", f"/servers/{server_id}", BASE)

    def set_service(self, service_id: str, disabled: bool, reason: str | None) -> None:
        """``PUT /os-services/{uuid}`` at 2.53: the compute service disabled (with the
        reason) or enabled."""
        body: dict[str, Any] = {"status": "disabled" if disabled else "enabled"}
        if disabled and reason:
            body["disabled_reason"] = reason
        self._call("PUT", f"/os-services/{service_id}", HYPERVISOR_UUIDS, body)


#: The client of each configuration, by the configuration's id (ConfigOpts is not
#: hashable); the weak reference tells a configuration from a later one at its id.
_SHARED: dict[int, tuple[weakref.ref[ConfigOpts], Nova]] = {}
_SHARED_LOCK = threading.Lock()


def shared(conf: ConfigOpts) -> Nova:
    """The one client of ``conf``'s Nova: every action of an applier shares its
    session and token (keystoneauth renews the token; its HTTP session is safe to
    share between the applier's threads)."""
    with _SHARED_LOCK:
        found = _SHARED.get(id(conf))
        if found is None or found[0]() is not conf:
            found = (weakref.ref(conf), Nova.from_conf(conf))
            _SHARED[id(conf)] = found
        return found[1]


def check_floor(nova: Nova) -> str | None:
    """Why the executor cannot work with this Nova (its compute API below
    :data:`FLOOR`), or None when it can."""
    offered = nova.max_microversion()
    if offered is None or _version(offered) < _version(FLOOR):
        return (
            f"Nova's compute API offers microversions up to {offered or '2.0 (none)'};"
            f" the nova executor needs {FLOOR} (Nova 17.0.0, Queens, or newer)"
        )
    return None


def _never_connected(exc: Exception) -> bool:
    """Whether keystoneauth failed before any connection was made (refused, no route,
    unknown name), so nothing can have reached Nova. keystoneauth's ConnectFailure
    also covers a connection dropped while the answer was awaited, which may have."""
    text = str(exc)
    return isinstance(exc, ksa_exceptions.ConnectFailure) and (
        "NewConnectionError" in text or "Connection refused" in text
    )


def _version(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)
