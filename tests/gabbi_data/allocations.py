"""Data for the allocation and reshaper stories.

``AllocationFixture`` seeds one compute node with three consumers already on
it, the starting point upstream's allocation tests share:

* provider ``RP_UUID`` / ``RP_NAME``: DISK_GB 2048 (min 10, max 1000,
  step 10) then VCPU 10 (max 10), each added by its own POST, so its
  generation is 2 before the allocations and 5 after;
* ``CONSUMER_0`` holds DISK_GB 1000 and ``CONSUMER_ID`` holds VCPU 6, both
  for ``USER_ID``; ``ALT_CONSUMER_ID`` holds DISK_GB 20 + VCPU 1 for
  ``ALT_USER_ID``; all in ``PROJECT_ID``, written at 1.28 with a null
  generation (so each has consumer generation 1 and no consumer type);
* ``ALT_RP_UUID`` / ``ALT_RP_NAME`` are only exported, for a provider the
  story creates itself (typically a child to reshape into).
"""

from __future__ import annotations

import os
import uuid

from tests.gabbi_fixtures import api_call


def _export(name: str) -> str:
    os.environ[name] = str(uuid.uuid4())
    return os.environ[name]


def fixtures(api_fixture: type) -> list[type]:

    class AllocationFixture(api_fixture):
        """One provider with DISK_GB and VCPU and three consumers using them."""

        def seed(self, app) -> None:
            rp = os.environ["RP_UUID"]
            api_call(
                app,
                "POST",
                "/resource_providers",
                {"name": os.environ["RP_NAME"], "uuid": rp},
                version="1.20",
            )
            for record in (
                {
                    "resource_class": "DISK_GB",
                    "total": 2048,
                    "step_size": 10,
                    "min_unit": 10,
                    "max_unit": 1000,
                },
                {"resource_class": "VCPU", "total": 10, "max_unit": 10},
            ):
                api_call(
                    app, "POST", f"/resource_providers/{rp}/inventories", record, version="1.1"
                )
            alt_user = _export("ALT_USER_ID")
            for name, user, resources in (
                ("CONSUMER_0", os.environ["USER_ID"], {"DISK_GB": 1000}),
                ("CONSUMER_ID", os.environ["USER_ID"], {"VCPU": 6}),
                ("ALT_CONSUMER_ID", alt_user, {"DISK_GB": 20, "VCPU": 1}),
            ):
                api_call(
                    app,
                    "PUT",
                    f"/allocations/{_export(name)}",
                    {
                        "allocations": {rp: {"resources": resources}},
                        "project_id": os.environ["PROJECT_ID"],
                        "user_id": user,
                        "consumer_generation": None,
                    },
                    version="1.28",
                )
            _export("ALT_RP_UUID")
            _export("ALT_RP_NAME")

    return [AllocationFixture]
