"""The names of the built-in action types, said once.

Planners, strategies, effects and tests compare action types by these
constants, never by a bare string, so a typo is an import error rather than
an action type nobody recognises.
"""

from __future__ import annotations

from typing import Final

MIGRATE: Final = "migrate"
RESIZE: Final = "resize"
CHANGE_NOVA_SERVICE_STATE: Final = "change_nova_service_state"
CHANGE_NODE_POWER_STATE: Final = "change_node_power_state"
TURN_HOST_TO_ACPI_S3_STATE: Final = "turn_host_to_acpi_s3_state"
SLEEP: Final = "sleep"
NOP: Final = "nop"
VOLUME_MIGRATE: Final = "volume_migrate"
SHELVE: Final = "shelve"
STOP: Final = "stop"
DELETE: Final = "delete"
