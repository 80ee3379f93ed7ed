"""``change_nova_service_state`` done by Nova: the node's compute service disabled
(with the reason) or enabled, ``PUT /os-services/{id}``.

The node is mapped to its service exactly: the hypervisor whose uuid is the
node provider's (2.53) names its service. Nova then sets or clears
``COMPUTE_STATUS_DISABLED`` on the provider itself. Asking twice is harmless,
so nothing is recorded before asking.
"""

from __future__ import annotations

from typing import Any

from placement.actionplans.action_types import names
from placement.effects import base
from placement.effects.nova import client, common

#: Requested states that disable; "enabled" and "up" enable (as the placement executor).
DISABLING = frozenset({"disabled", "down"})


def change_service_state(
    nova: client.Nova, params: dict[str, Any], env: base.RunEnv
) -> base.Outcome:
    """Disable or enable the compute service of node ``resource_id``."""
    ident, state = params["resource_id"], params["state"]
    try:
        node = common.hypervisor_of(nova, env, ident)
    except (common.NodeNotFound, client.NotFound) as exc:
        return base.failed_pre_condition(str(exc))
    disabled = state in DISABLING
    reason = params.get("disabled_reason")
    if node.service_disabled == disabled and (not disabled or node.disabled_reason == reason):
        return base.skipped(f"the compute service of {node.host} is already {state}")
    nova.set_service(node.service_id, disabled, reason)
    return base.succeeded()


CHANGE_NOVA_SERVICE_STATE = common.NovaType(names.CHANGE_NOVA_SERVICE_STATE, change_service_state)
