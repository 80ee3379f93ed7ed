"""Fixtures for the auth, policy, CORS and request-limit stories
(``gabbits/auth-*``, ``cors-*``, ``bad-input-*``)."""

from __future__ import annotations

import os
import tempfile

POLICY_FILE = """\
# A reader may list traits, nobody may show one.
"placement:traits:list": "role:reader"
"placement:traits:show": "!"
"""


def fixtures(api_fixture: type) -> list[type]:

    class LegacyRBACFixture(api_fixture):
        """``[oslo_policy] enforce_new_defaults = False``: admin may do everything."""

        overrides = {"oslo_policy": {"enforce_new_defaults": False}}

    class PolicyFileFixture(api_fixture):
        """A ``policy.yaml`` overriding two rules (see :data:`POLICY_FILE`)."""

        def start_fixture(self) -> None:
            self._dir = tempfile.TemporaryDirectory(prefix="placement-policy-")
            path = os.path.join(self._dir.name, "policy.yaml")
            with open(path, "w") as stream:
                stream.write(POLICY_FILE)
            self.overrides = {"oslo_policy": {"policy_file": path}}
            super().start_fixture()

        def stop_fixture(self) -> None:
            super().stop_fixture()
            self._dir.cleanup()

    class CORSFixture(api_fixture):
        """``[cors] allowed_origin = http://valid.example.com``, other options default."""

        overrides = {"cors": {"allowed_origin": ["http://valid.example.com"]}}

    class SmallBodiesFixture(api_fixture):
        """``[api] max_request_body_size = 100``: a larger body is a 413."""

        overrides = {"api": {"max_request_body_size": 100}}

    return [LegacyRBACFixture, PolicyFileFixture, CORSFixture, SmallBodiesFixture]
