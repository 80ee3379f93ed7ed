"""A stand-in Neutron (v2.0) holding one shared network and the ports Nova makes on it.

Tempest boots every scenario server on a network it finds by name
(``[compute] fixed_network_name``), and Nova then creates, binds, lists, moves
and deletes a port for it through Neutron's API. This keeps that much, in
memory: the network :data:`NETWORK_NAME` with one IPv4 subnet, a ``default``
security group in every project, and ports with an address each (created,
shown, listed by any of their fields, updated, deleted). Neutron's collection
filters are equality on a field, a repeated parameter meaning "any of"; ``fields``
narrows what is returned. Every other collection is empty (no extensions: Nova
then binds ports the legacy way, by updating ``binding:host_id``), quotas are
unlimited, and what it does not know is a 404 in Neutron's error format.
"""

from __future__ import annotations

import ipaddress
import itertools
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

NETWORK_NAME = "private"
NETWORK_ID = "6e5c3b2a-0000-4a4a-9999-00000000000a"
SUBNET_ID = "6e5c3b2a-0000-4a4a-9999-00000000000b"
SECURITY_GROUP_ID = "6e5c3b2a-0000-4a4a-9999-00000000000c"
CIDR = ipaddress.ip_network("10.20.0.0/16")

Reply = tuple[str, Any]

NETWORK: dict[str, Any] = {
    "id": NETWORK_ID,
    "name": NETWORK_NAME,
    "status": "ACTIVE",
    "admin_state_up": True,
    "shared": True,
    "router:external": False,
    "subnets": [SUBNET_ID],
    "tenant_id": "",
    "project_id": "",
    "mtu": 1450,
    "port_security_enabled": True,
    "provider:network_type": "vxlan",
    "provider:physical_network": None,
}

SUBNET: dict[str, Any] = {
    "id": SUBNET_ID,
    "name": f"{NETWORK_NAME}-subnet",
    "network_id": NETWORK_ID,
    "ip_version": 4,
    "cidr": str(CIDR),
    "gateway_ip": str(CIDR[1]),
    "enable_dhcp": False,
    "dns_nameservers": [],
    "host_routes": [],
    "allocation_pools": [{"start": str(CIDR[2]), "end": str(CIDR[-2])}],
    "tenant_id": "",
    "project_id": "",
}


def _matches(item: dict[str, Any], filters: dict[str, list[str]]) -> bool:
    """Neutron's equality filters: each named field equals one of the values given."""
    for name, wanted in filters.items():
        if name not in item:
            return False
        value = item[name]
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if text not in [w.lower() if isinstance(value, bool) else w for w in wanted]:
            return False
    return True


def _narrowed(item: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    return {name: item[name] for name in fields if name in item} if fields else item


@dataclass
class Neutron:
    """The network's state: ports by id, and the next address to hand out."""

    ports: dict[str, dict[str, Any]] = field(default_factory=dict)
    _hosts: itertools.count = field(default_factory=lambda: itertools.count(2))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, method: str, parts: list[str], query: str, body: object) -> Reply:
        """Answer ``method`` on ``/v2.0/<parts...>`` (``parts`` split on ``/``)."""
        params = parse_qs(query)
        fields = params.pop("fields", [])
        with self._lock:
            if method == "GET" and len(parts) == 1:
                return self._list(parts[0], params, fields)
            if parts[0] == "ports":
                return self._port(method, parts[1:], body)
            if method == "GET" and len(parts) == 2:
                return self._show(parts[0], parts[1], fields)
        return _not_found(f"{method} /{'/'.join(parts)}")

    def _collection(self, name: str, params: dict[str, list[str]]) -> list[dict[str, Any]]:
        if name == "networks":
            return [NETWORK]
        if name == "subnets":
            return [SUBNET]
        if name == "ports":
            return list(self.ports.values())
        if name == "security-groups":
            tenant = (params.get("tenant_id") or params.get("project_id") or [""])[0]
            group = {"id": SECURITY_GROUP_ID, "name": "default", "description": ""}
            return [{**group, "tenant_id": tenant, "project_id": tenant, "rules": []}]
        return []

    def _list(self, name: str, params: dict[str, list[str]], fields: list[str]) -> Reply:
        if name == "quotas":
            return "200 OK", {"quotas": []}
        items = self._collection(name, params)
        found = [_narrowed(item, fields) for item in items if _matches(item, params)]
        return "200 OK", {name.replace("-", "_"): found}

    def _show(self, collection: str, ident: str, fields: list[str]) -> Reply:
        if collection == "quotas":
            return "200 OK", {"quota": {"port": -1, "network": -1, "security_group": -1}}
        for item in self._collection(collection, {}):
            if item["id"] == ident:
                return "200 OK", {collection.rstrip("s").replace("-", "_"): _narrowed(item, fields)}
        return _not_found(f"{collection} {ident}")

    def _port(self, method: str, rest: list[str], body: object) -> Reply:
        request = body.get("port", {}) if isinstance(body, dict) else {}
        if method == "POST" and not rest:
            if request.get("network_id", NETWORK_ID) != NETWORK_ID:
                return _not_found(f"network {request.get('network_id')}")
            return "201 Created", {"port": self._new_port(request)}
        port = self.ports.get(rest[0]) if rest else None
        if port is None:
            return _not_found(f"port {rest}")
        if method == "GET":
            return "200 OK", {"port": port}
        if method == "PUT":
            port.update({k: v for k, v in request.items() if k not in ("id", "fixed_ips")})
            return "200 OK", {"port": port}
        if method == "DELETE":
            del self.ports[port["id"]]
            return "204 No Content", None
        return _not_found(f"{method} port {port['id']}")

    def _new_port(self, request: dict[str, Any]) -> dict[str, Any]:
        number = next(self._hosts)
        port_id = str(uuid.uuid4())
        tenant = request.get("tenant_id") or request.get("project_id") or ""
        port: dict[str, Any] = {
            "id": port_id,
            "name": "",
            "network_id": NETWORK_ID,
            "mac_address": f"fa:16:3e:{number >> 16 & 255:02x}:{number >> 8 & 255:02x}:"
            f"{number & 255:02x}",
            "fixed_ips": [{"subnet_id": SUBNET_ID, "ip_address": str(CIDR[number])}],
            "status": "ACTIVE",
            "admin_state_up": True,
            "device_id": "",
            "device_owner": "",
            "tenant_id": tenant,
            "project_id": tenant,
            "security_groups": [],
            "binding:host_id": "",
            "binding:vif_type": "ovs",
            "binding:vnic_type": "normal",
            "binding:vif_details": {"port_filter": True},
            "binding:profile": {},
            "port_security_enabled": True,
        }
        port.update({k: v for k, v in request.items() if k not in ("id", "fixed_ips")})
        self.ports[port_id] = port
        return port


def _not_found(what: str) -> Reply:
    return "404 Not Found", {
        "NeutronError": {"type": "NotFound", "message": f"no {what}", "detail": ""}
    }
