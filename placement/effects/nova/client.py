"""A small client of Nova's compute API on a keystoneauth session (no python-novaclient).

The session comes from ``[watcher_clients_auth]`` (keystoneauth's auth and
session options), the compute endpoint from its catalog (service type
``compute``, ``[nova_client] endpoint_type`` and ``region_name``; an
``admin_token`` auth names the endpoint itself). Every call sends
``OpenStack-API-Version: compute X`` at the microversion it needs, named
below; a refusal is a :class:`NovaError` carrying Nova's own message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from keystoneauth1 import adapter as ksa_adapter
from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ka_loading
from oslo_config.cfg import ConfigOpts

from placement import actionplan_opts
from placement.actionplans import reconcile

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
#: Calls whose body and answer are the same at every microversion.
BASE: Final = "2.1"


class NovaError(Exception):
    """Nova refused a call, or could not be reached; ``str()`` is Nova's message."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotFound(NovaError):
    """Nova has no such server, hypervisor, service or flavor (404)."""


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

    def __init__(self, compute: ksa_adapter.Adapter) -> None:
        self._compute = compute

    @classmethod
    def from_conf(cls, conf: ConfigOpts) -> Nova:
        return cls(session_from(conf))

    def _call(
        self, method: str, path: str, microversion: str, body: Any = None
    ) -> tuple[Any, Mapping[str, str]]:
        """One call: ``(decoded body or None, headers)``; a refusal raises NovaError."""
        try:
            response = self._compute.request(
                path,
                method,
                json=body,
                microversion=microversion,
                raise_exc=False,
            )
        except ksa_exceptions.ClientException as exc:
            raise NovaError(f"Nova cannot be reached: {exc}") from None
        try:
            decoded = response.json() if response.content else None
        except ValueError:
            decoded = None
        if response.status_code >= 400:
            message = fault_message(decoded) or response.text or response.reason
            kind = NotFound if response.status_code == 404 else NovaError
            raise kind(message, response.status_code)
        return decoded, response.headers

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
