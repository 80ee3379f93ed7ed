"""Fixtures for the auth, policy and CORS stories (``gabbits/auth-*``, ``cors-*``).

Their settings live in option groups that oslo.policy and oslo.middleware
register when the app is built, after the test configuration is made, so
they are handed over the way an operator can too: as ``OS_<GROUP>__<OPTION>``
environment variables, set while the file runs.
"""

from __future__ import annotations

import os
import tempfile

POLICY_FILE = """\
# A reader may list traits, nobody may show one.
"placement:traits:list": "role:reader"
"placement:traits:show": "!"
"""


def fixtures(api_fixture: type) -> list[type]:

    class _EnvironmentFixture(api_fixture):
        """Sets ``environment`` for the duration of the file."""

        environment: dict[str, str] = {}

        def start_fixture(self) -> None:
            self._saved = {name: os.environ.get(name) for name in self.environment}
            os.environ.update(self.environment)
            super().start_fixture()

        def stop_fixture(self) -> None:
            super().stop_fixture()
            for name, value in self._saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    class LegacyRBACFixture(_EnvironmentFixture):
        """``[oslo_policy] enforce_new_defaults = False``: admin may do everything."""

        environment = {"OS_OSLO_POLICY__ENFORCE_NEW_DEFAULTS": "false"}

    class PolicyFileFixture(_EnvironmentFixture):
        """A ``policy.yaml`` overriding two rules (see :data:`POLICY_FILE`)."""

        def start_fixture(self) -> None:
            self._dir = tempfile.TemporaryDirectory(prefix="placement-policy-")
            path = os.path.join(self._dir.name, "policy.yaml")
            with open(path, "w") as stream:
                stream.write(POLICY_FILE)
            self.environment = {"OS_OSLO_POLICY__POLICY_FILE": path}
            super().start_fixture()

        def stop_fixture(self) -> None:
            super().stop_fixture()
            self._dir.cleanup()

    class CORSFixture(_EnvironmentFixture):
        """``[cors] allowed_origin = http://valid.example.com``, other options default."""

        environment = {"OS_CORS__ALLOWED_ORIGIN": "http://valid.example.com"}

    return [LegacyRBACFixture, PolicyFileFixture, CORSFixture]
