"""A small client of the whole service with the calls API tests repeat.

The ``api`` fixture (``tests/conftest.py``) hands one :class:`Api` per backend
and test module; tests share the module's database, so each test makes its own
providers and consumers (fresh uuids) instead of relying on an empty database.
"""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy

from placement import direct


class Api:
    """The service through :class:`placement.direct.Client`, plus shortcuts."""

    def __init__(self, app: Any, conf: Any, backend: str) -> None:
        self.client = direct.Client(app, host="localhost", latest_microversion=True)
        self.engine: sqlalchemy.Engine = app.placement_engine
        self.conf = conf
        self.backend = backend

    def __getattr__(self, name: str) -> Any:  # get/put/post/delete/request
        return getattr(self.client, name)

    def ok(
        self, method: str, url: str, json: Any = None, version: str = "latest", **kwargs: Any
    ) -> direct.Response:
        resp = self.client.request(method, url, json=json, version=version, **kwargs)
        assert resp.status_code < 400, (method, url, resp.status_code, resp.text)
        return resp

    def provider(self, parent: str | None = None, **inventories: Any) -> str:
        """A new provider, with ``VCPU={"total": 8}``-style inventories."""
        rp = str(uuid.uuid4())
        self.ok(
            "POST", "/resource_providers", {"name": rp, "uuid": rp, "parent_provider_uuid": parent}
        )
        if inventories:
            self.set_inventory(rp, **inventories)
        return rp

    def set_inventory(self, rp: str, **inventories: Any) -> None:
        self.ok(
            "PUT",
            f"/resource_providers/{rp}/inventories",
            {"resource_provider_generation": self.generation(rp), "inventories": inventories},
        )

    def generation(self, rp: str) -> int:
        return self.ok("GET", f"/resource_providers/{rp}").json()["generation"]

    def usage(self, rp: str) -> dict[str, int]:
        return self.ok("GET", f"/resource_providers/{rp}/usages").json()["usages"]

    def held(self, consumer: str, version: str = "latest") -> dict:
        return self.ok("GET", f"/allocations/{consumer}", version=version).json()

    def claim(self, allocations: dict[str, dict[str, int]], **kwargs: Any) -> str:
        """A new consumer given ``allocations`` (as :meth:`allocate` writes them)."""
        consumer = new_uuid()
        resp = self.allocate(consumer, allocations, **kwargs)
        assert resp.status_code == 204, (resp.status_code, resp.text)
        return consumer

    def allocate(
        self,
        consumer: str,
        allocations: dict[str, dict[str, int]],
        *,
        generation: Any = None,
        version: str = "1.38",
        project: str = "project",
        user: str = "user",
        consumer_type: str = "INSTANCE",
    ) -> direct.Response:
        """PUT ``{provider: {class: amount}}`` for ``consumer`` in the dict form."""
        return self.client.put(
            f"/allocations/{consumer}",
            json=body(
                allocations,
                generation=generation,
                version=version,
                project=project,
                user=user,
                consumer_type=consumer_type,
            ),
            version=version,
        )


def body(
    allocations: dict[str, dict[str, int]],
    *,
    generation: Any = None,
    version: str = "1.38",
    project: str = "project",
    user: str = "user",
    consumer_type: str = "INSTANCE",
) -> dict:
    """One consumer's dict-form entry at ``version`` (1.12 and later)."""
    entry: dict = {
        "allocations": {rp: {"resources": r} for rp, r in allocations.items()},
        "project_id": project,
        "user_id": user,
    }
    minor = int(version.split(".")[1])
    if minor >= 28:
        entry["consumer_generation"] = generation
    if minor >= 38:
        entry["consumer_type"] = consumer_type
    return entry


def new_uuid() -> str:
    return str(uuid.uuid4())


def error(resp: direct.Response) -> tuple[int, str, str]:
    """(status, code, detail) of an error response."""
    err = resp.json()["errors"][0]
    return resp.status_code, err.get("code", ""), err["detail"]
